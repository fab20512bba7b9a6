import Foundation
import Glibc
import ScenarioFormat

/// A file-system operation that failed, with the path and the system's reason.
package struct FileOutputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was being done ("create", "write", "fsync", "rename", ...).
    let operation: String
    let path: String
    /// `strerror(errno)` or an explanation.
    let reason: String

    package var description: String { "\(path): cannot \(operation): \(reason)" }

    static func errno(_ operation: String, _ path: String) -> FileOutputError {
        FileOutputError(operation: operation, path: path, reason: String(cString: strerror(Glibc.errno)))
    }
}

/// Crash-safe file replacement: readers see the old content or the new content, never a mix.
package enum AtomicWriter {
    /// Writes `data` to a temporary file in `url`'s directory (`.NAME.tmp-PID-N`, created
    /// exclusively), fsyncs it, renames it over `url` and fsyncs the directory. On any failure
    /// the temporary file is removed and `url` is untouched.
    /// - Throws: `FileOutputError` naming the failing operation and path.
    /// - Complexity: O(data.count) plus two fsyncs.
    package static func write(_ data: Data, to url: URL) throws(FileOutputError) {
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
