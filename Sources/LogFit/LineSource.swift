import CZlib
import Foundation

/// Reads a log line by line in fixed-size chunks through zlib's `gzread`, which reads gzip and
/// plain files alike: memory stays bounded whatever the file's size.
package final class LineSource {
    /// Bytes read per `gzread`.
    static let chunkBytes = 1 << 18
    /// A longer line is passed on truncated to this many bytes (and flagged).
    package static let lineBytesMax = 1 << 20

    private let file: gzFile
    package let path: String
    /// Lines delivered so far.
    package private(set) var linesRead = 0

    /// Opens `path` (gzip or plain).
    /// - Throws: `LogFitError.unreadable` naming the path.
    package init(path: String) throws(LogFitError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw .unreadable(path: path, reason: "is a directory; expected a log file")
        }
        guard let file = gzopen(path, "rb") else { throw .unreadable(path: path, reason: "cannot open the file") }
        gzbuffer(file, UInt32(Self.chunkBytes))
        self.file = file
        self.path = path
    }

    deinit { gzclose(file) }

    /// Calls `body(line, lineNumber, truncated)` for every line, numbered from 1, without its
    /// `\n` (and a `\r` before it). Returns a message when the input ended early (a truncated or
    /// corrupt gzip stream): the lines before it were delivered.
    /// - Complexity: O(bytes); memory O(chunk + longest line).
    package func forEachLine(_ body: (UnsafeBufferPointer<UInt8>, Int, Bool) -> Void) -> String? {
        var chunk = [UInt8](repeating: 0, count: Self.chunkBytes)
        var pending: [UInt8] = []
        var pendingTruncated = false
        var lineNumber = 0
        var failure: String?
        func emit(_ line: UnsafeBufferPointer<UInt8>, truncated: Bool) {
            lineNumber += 1
            var count = line.count
            if count > 0, line[count - 1] == 13 { count -= 1 }
            body(UnsafeBufferPointer(rebasing: line[0..<count]), lineNumber, truncated)
        }
        while true {
            let read = chunk.withUnsafeMutableBytes { gzread(file, $0.baseAddress, UInt32($0.count)) }
            if read < 0 {
                var code: Int32 = 0
                failure = "the input ends early (\(String(cString: gzerror(file, &code)))) after line \(lineNumber)"
                break
            }
            if read == 0 { break }
            chunk.withUnsafeBufferPointer { buffer in
                var start = 0
                for i in 0..<Int(read) where buffer[i] == 10 {
                    if pending.isEmpty && !pendingTruncated {
                        emit(UnsafeBufferPointer(rebasing: buffer[start..<i]), truncated: false)
                    } else {
                        let room = Self.lineBytesMax - pending.count
                        pending.append(contentsOf: buffer[start..<min(i, start + max(0, room))])
                        pending.withUnsafeBufferPointer { emit($0, truncated: pendingTruncated || i - start > room) }
                        pending.removeAll(keepingCapacity: true)
                        pendingTruncated = false
                    }
                    start = i + 1
                }
                if start < Int(read) {
                    let room = Self.lineBytesMax - pending.count
                    if Int(read) - start > room { pendingTruncated = true }
                    pending.append(contentsOf: buffer[start..<min(Int(read), start + max(0, room))])
                }
            }
        }
        if failure == nil {
            // A truncated gzip stream ends reads with Z_BUF_ERROR ("unexpected end of file").
            var code: Int32 = 0
            let message = String(cString: gzerror(file, &code))
            if code != Z_OK { failure = "the input ends early (\(message)) after line \(lineNumber)" }
        }
        if !pending.isEmpty || pendingTruncated {
            pending.withUnsafeBufferPointer { emit($0, truncated: pendingTruncated) }
        }
        linesRead += lineNumber
        return failure
    }
}

/// Why logs could not be fitted.
package enum LogFitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A file could not be opened or read.
    case unreadable(path: String, reason: String)
    /// A file's header or structure is not the expected format.
    case badFormat(path: String, reason: String)
    /// Nothing usable was read.
    case noUsableRows(String)
    /// A command-line value (format, column mapping) is invalid.
    case badOption(String)

    package var description: String {
        switch self {
        case let .unreadable(path, reason): return "\(path): \(reason)"
        case let .badFormat(path, reason): return "\(path): \(reason)"
        case let .noUsableRows(reason): return "no usable rows: \(reason)"
        case let .badOption(reason): return reason
        }
    }
}
