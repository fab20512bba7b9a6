import Foundation
import Glibc

/// Reading an input file (scenario, sweep) of bounded size from any readable path: a regular file,
/// `/dev/stdin`, a pipe or a process substitution (`<(…)`), whose size is unknown until read.
package enum InputFile {
    /// Why a file could not be read.
    package enum Failure: Error, Sendable, Equatable {
        /// The system's reason (`strerror`) for failing to open or read it.
        case unreadable(reason: String)
        /// It is a directory.
        case directory
        /// It holds more than the limit.
        case tooLarge(limitBytes: Int)
    }

    /// The bytes of `path`, read until end of file, refusing more than `limitBytes`.
    /// - Complexity: O(bytes read); at most `limitBytes + 1` bytes are read.
    package static func read(_ path: String, limitBytes: Int) -> Result<Data, Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.unreadable(reason: String(cString: strerror(errno)))) }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return .failure(.directory) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.unreadable(reason: String(cString: strerror(errno))))
            }
            if n == 0 { return .success(data) }
            data.append(contentsOf: buffer[0..<n])
            if data.count > limitBytes { return .failure(.tooLarge(limitBytes: limitBytes)) }
        }
    }

    /// "cannot read the file: Permission denied", "expected … of at most N bytes, found more".
    package static func message(_ failure: Failure, what: String) -> String {
        switch failure {
        case let .unreadable(reason): return "cannot read the file: \(reason)"
        case .directory: return "expected \(what), found a directory"
        case let .tooLarge(limit): return "expected \(what) of at most \(limit) bytes, found more"
        }
    }
}
