import Foundation
import Glibc
import ScenarioFormat

/// Who is writing a results directory: recorded in its lock file and its `INCOMPLETE` marker, and
/// named when a second run is refused.
package struct OutputOwner: Sendable, Equatable {
    /// Process id.
    package var pid: Int32
    /// Host name (`gethostname`).
    package var host: String
    /// When the run started, ISO 8601 UTC.
    package var started: String
    /// The command line, bounded and escaped for one line of text.
    package var command: String

    /// An owner record; see the properties.
    package init(pid: Int32, host: String, started: String, command: String) {
        self.pid = pid
        self.host = host
        self.started = started
        self.command = command
    }

    /// This process, running `command` (e.g. the program's arguments joined by spaces).
    package static func current(command: String) -> OutputOwner {
        var buffer = [CChar](repeating: 0, count: 256)
        let host = gethostname(&buffer, buffer.count - 1) == 0 ? String(cString: buffer) : "unknown host"
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return OutputOwner(pid: getpid(), host: host, started: formatter.string(from: Date()),
                           command: DisplayText.bounded(command))
    }

    /// "pid 12 on host n7 since 2026-12-01T11:00:00Z (prestage run default)".
    package var description: String { "pid \(pid) on host \(host) since \(started) (\(command))" }

    /// The `key: value` lines of the record.
    var lines: [String] { ["pid: \(pid)", "host: \(DisplayText.bounded(host))", "started: \(started)", "command: \(command)"] }

    /// The record in `text` (lines as `lines` writes them), or nil when it holds none.
    static func parse(_ text: String) -> OutputOwner? {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = String(line[..<colon])
            if fields[key] == nil { fields[key] = String(line[line.index(after: colon)...].drop(while: { $0 == " " })) }
        }
        guard let pidText = fields["pid"], let pid = Int32(pidText), let host = fields["host"] else { return nil }
        return OutputOwner(pid: pid, host: host, started: fields["started"] ?? "?", command: fields["command"] ?? "?")
    }
}

/// The exclusive right to write the results directory `NAME` (and `NAME.partial`) in a parent
/// directory, held by one live process at a time.
///
/// The lock is an open-file-description lock (`fcntl(F_OFD_SETLK)`, a whole-file write lock) on
/// the hidden sibling file `PARENT/.NAME.lock`. It is released by the kernel when the process ends
/// in any way (SIGKILL included), so a lock that can be taken means the previous owner is gone.
/// fcntl byte-range locks are the locks NFS carries between machines (NLM for NFSv3, part of the
/// protocol in NFSv4; Linux serves OFD locks through the same path), while `flock` is only emulated
/// over them by Linux clients and is local-only elsewhere. The lock file lives beside the directory,
/// not inside it, so it is never renamed or deleted with the directory it protects; it is removed
/// when the results are committed, and every taker checks after locking that the file it holds is
/// still the one at the path (otherwise it starts again), so the removal races with no one.
/// On a file system without locks (`ENOLCK`) the owner record is checked instead: a live process
/// on this host, or any other host, keeps the directory.
package final class OutputLock: @unchecked Sendable {
    /// The directory holding `NAME`, `NAME.partial` and the lock file.
    package let parent: URL
    /// The results directory's name.
    package let name: String
    /// Who holds the lock: this process.
    package let owner: OutputOwner
    private let descriptor: Int32
    private let lockPath: String
    private let mutex = NSLock()
    private var released = false

    private init(parent: URL, name: String, owner: OutputOwner, descriptor: Int32, lockPath: String) {
        self.parent = parent
        self.name = name
        self.owner = owner
        self.descriptor = descriptor
        self.lockPath = lockPath
    }

    deinit { release() }

    /// Linux's `F_OFD_SETLK` (not exported by every Glibc module map).
    private static let ofdSetLock: Int32 = 37

    /// Takes the lock of `NAME` in `parent` (creating `parent` if needed) and records `owner` in it.
    /// Then finishes a commit that a killed owner left half done (see `ResultsDirectory.commit`).
    /// - Throws: `FileOutputError` naming the live owner when another process holds it, or the
    ///   file-system failure.
    package static func acquire(in parent: URL, name: String, owner: OutputOwner) throws(FileOutputError) -> OutputLock {
        try ResultsDirectory.validate(name: name, in: parent.path)
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw FileOutputError(operation: "create directory", path: parent.path, reason: "\(error)")
        }
        let path = parent.appendingPathComponent("." + name + ".lock").path
        for _ in 0..<100 {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw .errno("open the lock file", path) }
            var request = flock()
            request.l_type = Int16(F_WRLCK)
            request.l_whence = Int16(SEEK_SET)
            if fcntl(fd, ofdSetLock, &request) != 0 {
                let code = errno
                if code == ENOLCK || code == EINVAL || code == EOPNOTSUPP {
                    if let live = liveOwner(readText(fd)) {
                        close(fd)
                        throw refusal(parent: parent, name: name, owner: live)
                    }
                } else {
                    let holder = OutputOwner.parse(readText(fd))
                    close(fd)
                    if code == EAGAIN || code == EACCES { throw refusal(parent: parent, name: name, owner: holder) }
                    throw FileOutputError(operation: "lock", path: path, reason: String(cString: strerror(code)))
                }
            }
            // The file locked must still be the one at the path (a committing owner removes it).
            var held = stat(), atPath = stat()
            guard fstat(fd, &held) == 0, stat(path, &atPath) == 0, held.st_dev == atPath.st_dev, held.st_ino == atPath.st_ino else {
                close(fd)
                continue
            }
            let text = (["prestage results lock of \(name)"] + owner.lines).joined(separator: "\n") + "\n"
            if ftruncate(fd, 0) != 0 || pwrite(fd, text, text.utf8.count, 0) != text.utf8.count {
                let failure = FileOutputError.errno("write the lock file", path)
                close(fd)
                throw failure
            }
            let lock = OutputLock(parent: parent, name: name, owner: owner, descriptor: fd, lockPath: path)
            try ResultsDirectory.finishInterruptedCommit(lock)
            return lock
        }
        throw FileOutputError(operation: "lock", path: path, reason: "the lock file kept being replaced; try again")
    }

    /// The refusal of a second run.
    private static func refusal(parent: URL, name: String, owner: OutputOwner?) -> FileOutputError {
        FileOutputError(operation: "write", path: parent.appendingPathComponent(name).path,
                        reason: "another run is writing it: \(owner?.description ?? "owner unknown"); wait for it to end or choose another output directory")
    }

    /// Without locks: the recorded owner if it may still be running (another host, or a live
    /// process on this one other than this process).
    private static func liveOwner(_ text: String) -> OutputOwner? {
        guard let recorded = OutputOwner.parse(text) else { return nil }
        let me = OutputOwner.current(command: "")
        if recorded.host != me.host { return recorded }
        if recorded.pid == me.pid { return nil }
        return kill(recorded.pid, 0) == 0 || errno == EPERM ? recorded : nil
    }

    private static func readText(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = pread(fd, &buffer, buffer.count, 0)
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
    }

    /// Removes the lock file (the results are complete, or the output was refused before
    /// anything was written) and releases the lock. Safe while others try to take it: an owner
    /// checks after locking that the file it holds is still the one at the path.
    package func removeAndRelease() {
        mutex.lock()
        let wasReleased = released
        mutex.unlock()
        if !wasReleased { unlink(lockPath) }
        release()
    }

    /// Releases the lock (idempotent); the lock file stays.
    package func release() {
        mutex.lock()
        defer { mutex.unlock() }
        guard !released else { return }
        released = true
        close(descriptor)
    }
}
