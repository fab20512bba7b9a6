import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Ports and plain HTTP/1.1 requests on 127.0.0.1 with blocking sockets and hard time limits:
/// readiness probes, warm and purge calls, the origin's counters. Not for device traffic (the
/// devices use URLSession through PreloadKitFoundation).
package enum LoopbackHTTP {
    /// A port that was free a moment ago on 127.0.0.1 (bound to port 0 and released). A component
    /// that then fails to bind it is restarted on another (``TestbedStack``).
    package static func freePort() -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var addr = loopback(port: 0)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { return nil }
        var out = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &out) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard ok == 0 else { return nil }
        return Int(UInt16(bigEndian: out.sin_port))
    }

    /// Distinct free ports.
    package static func freePorts(_ count: Int) -> [Int]? {
        var ports: [Int] = []
        var attempts = 0
        while ports.count < count && attempts < count * 20 {
            attempts += 1
            if let p = freePort(), !ports.contains(p) { ports.append(p) }
        }
        return ports.count == count ? ports : nil
    }

    static func loopback(port: Int) -> sockaddr_in {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return addr
    }

    /// A response: status, headers (names lowercased; a repeated header keeps its last value) and body.
    package struct Response: Sendable, Equatable {
        package var status: Int
        package var headers: [String: String]
        package var body: Data
    }

    /// `method path` to 127.0.0.1:`port` with `Connection: close`; nil on any failure or when
    /// `timeoutSeconds` passes.
    package static func request(port: Int, path: String, method: String = "GET", headers: [(String, String)] = [],
                               timeoutSeconds: Double = 5) -> Response? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var tv = timeval(tv_sec: Int(timeoutSeconds), tv_usec: Int((timeoutSeconds - Double(Int(timeoutSeconds))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = loopback(port: port)
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nAccept-Encoding: identity\r\n"
        for (k, v) in headers { text += "\(k): \(v)\r\n" }
        text += "\r\n"
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return nil }
            sent += n
        }
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while Date() < deadline {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n < 0 { return nil }
            if n == 0 { break }
            received.append(contentsOf: buffer[0..<n])
            if received.count > 64 << 20 { return nil }
        }
        return parse(received)
    }

    static func parse(_ data: Data) -> Response? {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: data[data.startIndex..<end.lowerBound], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n").first ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(data[end.upperBound...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = dechunked(body) }
        return Response(status: status, headers: headers, body: body)
    }

    static func dechunked(_ data: Data) -> Data {
        var out = Data()
        var i = data.startIndex
        while let lineEnd = data[i...].range(of: Data("\r\n".utf8)) {
            let sizeText = String(decoding: data[i..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size > 0 else { break }
            let start = lineEnd.upperBound
            let stop = min(data.endIndex, start + size)
            out.append(data[start..<stop])
            i = min(data.endIndex, stop + 2)
        }
        return out
    }
}
