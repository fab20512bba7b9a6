import Foundation
import Glibc
import ScenarioFormat

/// A file-system operation that failed, with the path and the system's reason.
public struct FileOutputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was being done ("create", "write", "fsync", "rename", ...).
    let operation: String
    let path: String
    /// `strerror(errno)` or an explanation.
    let reason: String

    public var description: String { "\(path): cannot \(operation): \(reason)" }

    static func errno(_ operation: String, _ path: String) -> FileOutputError {
        FileOutputError(operation: operation, path: path, reason: String(cString: strerror(Glibc.errno)))
    }
}

/// Crash-safe file replacement: readers see the old content or the new content, never a mix.
public enum AtomicWriter {
    /// Writes `data` to a temporary file in `url`'s directory (`.NAME.tmp-PID-N`, created
    /// exclusively), fsyncs it, renames it over `url` and fsyncs the directory. On any failure
    /// the temporary file is removed and `url` is untouched.
    /// - Throws: `FileOutputError` naming the failing operation and path.
    /// - Complexity: O(data.count) plus two fsyncs.
    public static func write(_ data: Data, to url: URL) throws(FileOutputError) {
        let target = url.path
        let directory = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        var fd: Int32 = -1
        var temp = ""
        for attempt in 0..<100 {
            temp = directory + "/." + name + ".tmp-\(getpid())-\(attempt)"
            fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 || Glibc.errno != EEXIST { break }
        }
        guard fd >= 0 else { throw .errno("create a temporary file", temp) }
        var failure: FileOutputError? = nil
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let n = Glibc.write(fd, base + offset, buffer.count - offset)
                if n < 0 {
                    if Glibc.errno == EINTR { continue }
                    failure = .errno("write", temp)
                    return
                }
                offset += n
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = .errno("fsync", temp) }
        if close(fd) != 0, failure == nil { failure = .errno("close", temp) }
        if failure == nil, rename(temp, target) != 0 { failure = .errno("rename \(temp) to", target) }
        if let failure {
            unlink(temp)
            throw failure
        }
        try syncDirectory(directory)
    }

    /// fsync on a directory, so a rename inside it is durable.
    static func syncDirectory(_ path: String) throws(FileOutputError) {
        let dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { throw .errno("open directory", path) }
        defer { close(dfd) }
        guard fsync(dfd) == 0 else { throw .errno("fsync directory", path) }
    }
}

/// A results directory that only appears under its final name once complete.
///
/// `begin` creates `PARENT/NAME.partial/` holding an `INCOMPLETE` marker file; results are written
/// into it (each file atomically); `commit()` removes the marker and renames the directory to
/// `PARENT/NAME/`. An interrupted run therefore leaves `NAME.partial/` with `INCOMPLETE` in it,
/// never a `NAME/` that looks finished.
public struct ResultsDirectory: Sendable {
    /// Name of the marker file inside the partial directory.
    public static let incompleteMarkerName = "INCOMPLETE"
    /// Longest accepted directory or file name, in bytes.
    static let nameLimitBytes = 200

    /// The final location, `PARENT/NAME`.
    public let finalURL: URL
    /// Where results are written until `commit()`, `PARENT/NAME.partial`.
    public let partialURL: URL

    /// Starts a results directory `NAME` in `parent` (created if missing). A leftover
    /// `NAME.partial` from an interrupted run is removed only if it holds the `INCOMPLETE` marker.
    /// - Throws: `FileOutputError` for an invalid name, an unmarked leftover, or a file-system failure.
    public static func begin(in parent: URL, name: String) throws(FileOutputError) -> ResultsDirectory {
        try validate(name: name, in: parent.path)
        let fm = FileManager.default
        let partial = parent.appendingPathComponent(name + ".partial", isDirectory: true)
        do {
            try fm.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw FileOutputError(operation: "create directory", path: parent.path, reason: "\(error)")
        }
        if fm.fileExists(atPath: partial.path) {
            let marker = partial.appendingPathComponent(incompleteMarkerName).path
            guard fm.fileExists(atPath: marker) else {
                throw FileOutputError(operation: "reuse", path: partial.path,
                                      reason: "it exists without an \(incompleteMarkerName) marker; remove it by hand")
            }
            do { try fm.removeItem(at: partial) } catch {
                throw FileOutputError(operation: "remove leftover", path: partial.path, reason: "\(error)")
            }
        }
        guard mkdir(partial.path, 0o755) == 0 else { throw .errno("create directory", partial.path) }
        let directory = ResultsDirectory(finalURL: parent.appendingPathComponent(name, isDirectory: true), partialURL: partial)
        try AtomicWriter.write(Data("This run has not completed. The directory is renamed to \(name) when it does.\n".utf8),
                               to: partial.appendingPathComponent(incompleteMarkerName))
        return directory
    }

    /// The one check of a results directory name: a plain file name, not hidden.
    static func validate(name: String, in path: String) throws(FileOutputError) {
        guard !name.isEmpty, name.utf8.count <= nameLimitBytes, !name.contains("/"), name != ".", name != "..",
              !name.hasPrefix("."), !name.contains("\0") else {
            throw FileOutputError(operation: "use name \(JSONValue.quoted(name))", path: path,
                                  reason: "expected a plain file name of 1...\(nameLimitBytes) bytes without '/', not starting with '.'")
        }
    }

    /// Atomically writes `data` as `fileName` inside the partial directory.
    /// - Throws: `FileOutputError`.
    public func write(_ data: Data, named fileName: String) throws(FileOutputError) {
        try Self.validate(name: fileName, in: partialURL.path)
        guard fileName != Self.incompleteMarkerName else {
            throw FileOutputError(operation: "write", path: fileName, reason: "the name is reserved for the marker")
        }
        try AtomicWriter.write(data, to: partialURL.appendingPathComponent(fileName))
    }

    /// Earlier results that `commit` may replace: a directory holding only `files` (the names a
    /// command writes), among them `marker` (written last, so only a completed run leaves it).
    public struct Replaceable: Sendable, Equatable {
        let files: Set<String>
        let marker: String

        public init(files: Set<String>, marker: String) {
            self.files = files.union([marker])
            self.marker = marker
        }
    }

    /// Checks that `url` may be replaced by new results: it does not exist, or it is a directory
    /// (not a symbolic link) holding `replaceable.marker` and nothing but `replaceable.files`.
    /// Commands call it before they start working, so that a wrong `--out` is refused at once
    /// instead of after the run; `commit` checks again before it moves anything.
    /// - Throws: `FileOutputError` naming the path and what makes it not replaceable (the first
    ///   few unexpected entries, sorted). Nothing is changed.
    public static func checkReplaceable(_ url: URL, _ replaceable: Replaceable) throws(FileOutputError) {
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
        let unexpected = entries.filter { !replaceable.files.contains($0) }
        guard unexpected.isEmpty else {
            let shown = unexpected.prefix(5).map { JSONValue.quoted($0) }.joined(separator: ", ")
            let more = unexpected.count > 5 ? " and \(unexpected.count - 5) more" : ""
            throw FileOutputError(operation: "replace", path: url.path,
                                  reason: "it is not earlier results: it holds \(shown)\(more), which a run does not write; \(advice)")
        }
        guard entries.contains(replaceable.marker) else {
            throw FileOutputError(operation: "replace", path: url.path,
                                  reason: "it is not completed results (no \(replaceable.marker)); \(advice)")
        }
    }

    /// Marks the results complete: removes `INCOMPLETE`, then renames `NAME.partial` to `NAME`.
    /// With `replacing`, an existing `NAME` that passes `checkReplaceable` is moved aside first and
    /// removed afterwards; any other existing `NAME` (and any existing `NAME` without `replacing`)
    /// is an error and nothing changes. So only earlier results are ever deleted, never a
    /// directory that `--out` named by mistake.
    /// - Returns: the final URL.
    /// - Throws: `FileOutputError`.
    @discardableResult
    public func commit(replacing replaceable: Replaceable? = nil) throws(FileOutputError) -> URL {
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
        let marker = partialURL.appendingPathComponent(Self.incompleteMarkerName).path
        guard unlink(marker) == 0 else { throw .errno("remove marker", marker) }
        try AtomicWriter.syncDirectory(partialURL.path)
        guard rename(partialURL.path, finalURL.path) == 0 else {
            let failure = FileOutputError.errno("rename \(partialURL.path) to", finalURL.path)
            if let aside { rename(aside, finalURL.path) }  // put the previous results back
            throw failure
        }
        try AtomicWriter.syncDirectory(parent)
        if let aside {
            do { try fm.removeItem(atPath: aside) } catch {
                throw FileOutputError(operation: "remove the replaced results", path: aside, reason: "\(error)")
            }
        }
        return finalURL
    }
}
