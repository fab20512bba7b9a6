import Foundation
import Glibc
import ScenarioFormat

/// A results directory that only appears under its final name once complete, written by one
/// live process at a time.
///
/// Ownership: every writer first takes the `OutputLock` of `NAME` (the lock file `.NAME.lock`
/// beside it); a second run is refused naming the owner. Under the lock, `begin` creates
/// `PARENT/NAME.partial/` holding an `INCOMPLETE` marker that records the owner (pid, host, start
/// time, command); results are written into it, each file atomically and fsynced.
///
/// Completion (`commit`) is one rename: `NAME.partial` (marker still inside) becomes `NAME`, then
/// the marker is removed. So at every instant a directory is either named `.partial`, or holds the
/// marker, or is complete: a kill can never leave a complete-looking directory that is not.
/// A kill between the rename and the marker's removal leaves `NAME` with every file and the
/// marker; the next owner of the lock removes that marker (`finishInterruptedCommit`).
///
/// A `NAME.partial` found under the lock has no live owner: if it holds this tool's marker (or
/// nothing at all) it is stale and is replaced (or, for `resume`, reused); anything else is a
/// user's directory and is refused, never deleted.
package struct ResultsDirectory: Sendable {
    /// Name of the marker file inside the partial directory.
    package static let incompleteMarkerName = "INCOMPLETE"
    /// Longest accepted directory or file name, in bytes.
    static let nameLimitBytes = 200
    /// The marker's first line (also how this tool recognises its own marker).
    static let markerHeading = "prestage: this directory is incomplete"
    /// The first line of the markers written by earlier versions of the tool.
    static let earlierMarkerHeading = "This run has not completed."

    /// The final location, `PARENT/NAME`.
    package let finalURL: URL
    /// Where results are written until `commit()`, `PARENT/NAME.partial`.
    package let partialURL: URL
    /// The exclusive right to write both.
    package let lock: OutputLock

    init(lock: OutputLock) {
        self.lock = lock
        finalURL = lock.parent.appendingPathComponent(lock.name, isDirectory: true)
        partialURL = lock.parent.appendingPathComponent(lock.name + ".partial", isDirectory: true)
    }

    /// Starts a results directory `NAME` in `parent` (created if missing), taking its lock for
    /// `owner`. See `begin(_:)`.
    /// - Throws: `FileOutputError`: another live run owns it, an invalid name, a leftover that is
    ///   not this tool's, or a file-system failure.
    package static func begin(in parent: URL, name: String,
                             owner: OutputOwner = .current(command: CommandLine.arguments.joined(separator: " "))) throws(FileOutputError) -> ResultsDirectory {
        try begin(try OutputLock.acquire(in: parent, name: name, owner: owner))
    }

    /// Starts the results directory `lock` protects: a stale `NAME.partial` (this tool's marker,
    /// or empty, or unmarked holding only `ownFiles`: a commit of an earlier version cut short) is removed; a fresh one is created with the marker naming the owner. If writing
    /// the marker fails (a full disk) the new directory is removed again, so no unmarked
    /// `NAME.partial` is left behind.
    /// A refusal (a `NAME` that is a symbolic link, a `NAME.partial` that is not this tool's, a
    /// failed write) leaves nothing behind, not even the lock file beside the user's directory.
    package static func begin(_ lock: OutputLock, ownFiles: Set<String> = []) throws(FileOutputError) -> ResultsDirectory {
        do throws(FileOutputError) {
            try refuseLinkedResults(lock)
            let directory = ResultsDirectory(lock: lock)
            if try directory.partialIsOurs(ownFiles: ownFiles) {
                do { try FileManager.default.removeItem(at: directory.partialURL) } catch {
                    throw FileOutputError(operation: "remove leftover", path: directory.partialURL.path, reason: "\(error)")
                }
            }
            guard mkdir(directory.partialURL.path, 0o755) == 0 else { throw .errno("create directory", directory.partialURL.path) }
            do {
                try directory.markIncomplete(reason: nil)
            } catch {
                try? FileManager.default.removeItem(at: directory.partialURL)
                throw error
            }
            return directory
        } catch {
            lock.removeAndRelease()
            throw error
        }
    }

    /// Takes the lock of `NAME` in `parent` for `owner` and refuses at once, before any work, a
    /// `NAME` that is not earlier results of the command (`replaceable`): a user's directory,
    /// another command's results, a symbolic link. A refusal leaves no lock file beside the user's
    /// directory. Every command that writes a results directory starts here.
    /// - Throws: `FileOutputError` (taken by a live owner, not replaceable, not writable).
    package static func claim(in parent: URL, name: String, owner: OutputOwner, replacing replaceable: Replaceable) throws(FileOutputError) -> OutputLock {
        let lock = try OutputLock.acquire(in: parent, name: name, owner: owner)
        do throws(FileOutputError) {
            // A link, dangling or not, is not earlier results either.
            try checkReplaceable(parent.appendingPathComponent(name, isDirectory: true), replaceable)
        } catch {
            lock.removeAndRelease()
            throw error
        }
        return lock
    }

    /// Refuses a `NAME` that is a symbolic link, dangling or not: `commit` never replaces a link,
    /// so results could never land there, and the refusal comes before any work instead of after.
    static func refuseLinkedResults(_ lock: OutputLock) throws(FileOutputError) {
        let path = lock.parent.appendingPathComponent(lock.name).path
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return }
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)).map { DisplayText.quoted($0) } ?? "an unreadable target"
        let dangling = !FileManager.default.fileExists(atPath: path)
        throw FileOutputError(operation: "write results to", path: path,
                              reason: "it is a symbolic link to \(target)\(dangling ? ", which does not exist" : ""); results go into a real directory: name the link's target or another directory")
    }

    /// Whether an existing `NAME.partial` is this tool's and may be replaced or reused (the caller
    /// holds the lock, so its owner is gone): false when there is none. It is this tool's when it
    /// holds this tool's marker, or nothing but `ownFiles` (the names the command writes) and the
    /// temporary files of writes cut short.
    /// - Throws: `FileOutputError` when it exists but is not this tool's: a user's directory, never
    ///   deleted.
    func partialIsOurs(ownFiles: Set<String>) throws(FileOutputError) -> Bool {
        var info = stat()
        guard lstat(partialURL.path, &info) == 0 else {
            if Glibc.errno == ENOENT { return false }
            throw .errno("inspect", partialURL.path)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw FileOutputError(operation: "reuse", path: partialURL.path, reason: "it is not a directory written by prestage; remove it by hand or choose another output directory")
        }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: partialURL.path)) ?? []
        // Only the command's own files and the temporary files of writes cut short (or nothing):
        // a start or an earlier version's commit that was killed.
        if entries.allSatisfy({ ownFiles.contains($0) || ($0.hasPrefix(".") && $0.contains(".tmp-")) }) { return true }
        if Self.isOurMarker(partialURL.appendingPathComponent(Self.incompleteMarkerName)) { return true }
        throw FileOutputError(operation: "reuse", path: partialURL.path,
                              reason: "it exists without a prestage \(Self.incompleteMarkerName) marker, so it is not a leftover of this tool; remove it by hand or choose another output directory")
    }

    /// Whether `url` is a marker this tool wrote (now or in an earlier version).
    static func isOurMarker(_ url: URL) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return false }
        defer { try? handle.close() }
        let head = String(decoding: (try? handle.read(upToCount: 4096)) ?? Data(), as: UTF8.self)
        return head.hasPrefix(markerHeading) || head.hasPrefix(earlierMarkerHeading)
    }

    /// Finishes what an owner killed during `commit` left: removes the marker left in `NAME` by a
    /// kill between the rename and the marker's removal (everything was written and fsynced before
    /// the rename, so the results are complete).
    /// Earlier results a killed commit moved aside (`.NAME.old-PID`) are put back when `NAME` is
    /// missing (the kill came before the rename) and removed otherwise.
    static func finishInterruptedCommit(_ lock: OutputLock) throws(FileOutputError) {
        let directory = ResultsDirectory(lock: lock)
        let asidePrefix = "." + lock.name + ".old-"
        let parentPath = lock.parent.path
        for entry in ((try? FileManager.default.contentsOfDirectory(atPath: parentPath)) ?? []).sorted()
        where entry.hasPrefix(asidePrefix) && Int32(entry.dropFirst(asidePrefix.count)) != nil {
            let aside = parentPath + "/" + entry
            var info = stat()
            if lstat(directory.finalURL.path, &info) != 0, Glibc.errno == ENOENT {
                guard rename(aside, directory.finalURL.path) == 0 else { throw .errno("put back the earlier results \(aside) as", directory.finalURL.path) }
            } else {
                do { try FileManager.default.removeItem(atPath: aside) } catch {
                    throw FileOutputError(operation: "remove the replaced results", path: aside, reason: "\(error)")
                }
            }
        }
        let marker = directory.finalURL.appendingPathComponent(incompleteMarkerName)
        guard isOurMarker(marker) else { return }
        guard unlink(marker.path) == 0 else { throw .errno("remove marker", marker.path) }
        try AtomicWriter.syncDirectory(directory.finalURL.path)
    }

    /// (Re)writes the marker: the owner and, when given, why the run stopped.
    /// - Throws: `FileOutputError`.
    package func markIncomplete(reason: String?) throws(FileOutputError) {
        var lines = ["\(Self.markerHeading); it is renamed to \(DisplayText.bounded(finalURL.lastPathComponent)) when the run completes."]
        lines += lock.owner.lines
        if let reason { lines.append("reason: " + reason) }
        try AtomicWriter.write(Data((lines.joined(separator: "\n") + "\n").utf8), to: partialURL.appendingPathComponent(Self.incompleteMarkerName))
    }

    /// The one check of a results directory name: a plain file name, not hidden.
    static func validate(name: String, in path: String) throws(FileOutputError) {
        guard !name.isEmpty, name.utf8.count <= nameLimitBytes, !name.contains("/"), name != ".", name != "..",
              !name.hasPrefix("."), !name.contains("\0") else {
            throw FileOutputError(operation: "use name \(DisplayText.quoted(name))", path: path,
                                  reason: "expected a plain file name of 1...\(nameLimitBytes) bytes without '/', not starting with '.'")
        }
    }

    /// Atomically writes `data` as `fileName` inside the partial directory.
    /// - Throws: `FileOutputError`.
    package func write(_ data: Data, named fileName: String) throws(FileOutputError) {
        try Self.validate(name: fileName, in: partialURL.path)
        guard fileName != Self.incompleteMarkerName else {
            throw FileOutputError(operation: "write", path: fileName, reason: "the name is reserved for the marker")
        }
        try AtomicWriter.write(data, to: partialURL.appendingPathComponent(fileName))
    }

    /// Earlier results that `commit` may replace: a directory holding only `files` (the names a
    /// command writes), among them `marker` (written last, so only a completed run leaves it).
    package struct Replaceable: Sendable, Equatable {
        package let files: Set<String>
        package let marker: String
        /// Name prefixes of the files a command writes one per item (`fit --report`'s `qq-` plots).
        let filePrefixes: [String]

        package init(files: Set<String>, marker: String, filePrefixes: [String] = []) {
            self.files = files.union([marker])
            self.marker = marker
            self.filePrefixes = filePrefixes
        }

        /// Whether the command writes a file named `name`.
        func owns(_ name: String) -> Bool {
            files.contains(name) || (!name.hasPrefix(".") && filePrefixes.contains { name.hasPrefix($0) })
        }
    }

    /// Checks that `url` may be replaced by new results: it does not exist, or it is a directory
    /// (not a symbolic link) holding `replaceable.marker` and nothing but the files it owns.
    /// Commands call it before they start working, so that a wrong `--out` is refused at once
    /// instead of after the run; `commit` checks again before it moves anything.
    /// - Throws: `FileOutputError` naming the path and what makes it not replaceable (the first
    ///   few unexpected entries, sorted). Nothing is changed.
    package static func checkReplaceable(_ url: URL, _ replaceable: Replaceable) throws(FileOutputError) {
        var info = stat()
        guard lstat(url.path, &info) == 0 else {
            if Glibc.errno == ENOENT { return }
            throw .errno("inspect", url.path)
        }
        let advice = "choose another output directory or remove it by hand"
        guard info.st_mode & S_IFMT == S_IFDIR else {
            let what = info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a directory"
            throw FileOutputError(operation: "replace", path: url.path, reason: "it is \(what), not earlier results; \(advice)")
        }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
        } catch {
            throw FileOutputError(operation: "list", path: url.path, reason: "\(error)")
        }
        let unexpected = entries.filter { !replaceable.owns($0) }
        guard unexpected.isEmpty else {
            let shown = unexpected.prefix(5).map { DisplayText.quoted($0) }.joined(separator: ", ")
            let more = unexpected.count > 5 ? " and \(unexpected.count - 5) more" : ""
            throw FileOutputError(operation: "replace", path: url.path,
                                  reason: "it is not earlier results: it holds \(shown)\(more), which a run does not write; \(advice)")
        }
        guard entries.contains(replaceable.marker) else {
            throw FileOutputError(operation: "replace", path: url.path,
                                  reason: "it is not completed results (no \(replaceable.marker)); \(advice)")
        }
    }

    /// Marks the results complete in one step: renames `NAME.partial` (every file already
    /// fsynced, the marker still inside) to `NAME`, then removes the marker and the lock file.
    /// With `replacing`, an existing `NAME` that passes `checkReplaceable` is moved aside first and
    /// removed afterwards; any other existing `NAME` (and any existing `NAME` without `replacing`)
    /// is an error and nothing changes. So only earlier results are ever deleted, never a
    /// directory that `--out` named by mistake.
    /// - Returns: the final URL.
    /// - Throws: `FileOutputError`.
    @discardableResult
    package func commit(replacing replaceable: Replaceable? = nil) throws(FileOutputError) -> URL {
        let fm = FileManager.default
        let parent = finalURL.deletingLastPathComponent().path
        var aside: String? = nil
        var info = stat()
        if lstat(finalURL.path, &info) == 0 {
            guard let replaceable else {
                throw FileOutputError(operation: "commit", path: finalURL.path, reason: "it already exists")
            }
            try Self.checkReplaceable(finalURL, replaceable)
            let old = parent + "/." + finalURL.lastPathComponent + ".old-\(getpid())"
            guard rename(finalURL.path, old) == 0 else { throw .errno("move aside", finalURL.path) }
            aside = old
        }
        try AtomicWriter.syncDirectory(partialURL.path)
        guard rename(partialURL.path, finalURL.path) == 0 else {
            let failure = FileOutputError.errno("rename \(partialURL.path) to", finalURL.path)
            if let aside { rename(aside, finalURL.path) }  // put the previous results back
            throw failure
        }
        try AtomicWriter.syncDirectory(parent)
        let marker = finalURL.appendingPathComponent(Self.incompleteMarkerName).path
        guard unlink(marker) == 0 else { throw .errno("remove marker", marker) }
        try AtomicWriter.syncDirectory(finalURL.path)
        lock.removeAndRelease()
        if let aside {
            do { try fm.removeItem(atPath: aside) } catch {
                throw FileOutputError(operation: "remove the replaced results", path: aside, reason: "\(error)")
            }
        }
        return finalURL
    }
}
