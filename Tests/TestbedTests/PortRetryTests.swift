import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import Testbed

/// A component whose port is taken is started again on fresh ports (`TestbedStack.withRetries`).
///
/// The port picker is injected: its first answer is a port this test holds with a listening socket,
/// so the component's first start fails exactly as when another program takes the port between
/// the probe and the bind. The component must then run on another port, and the failed attempt
/// must leave no process behind.
final class PortRetryTests: XCTestCase {
    /// Ports the picker handed out, one list per call; the first call's first port is `taken`.
    final class Picker: @unchecked Sendable {
        let taken: Int
        private let lock = NSLock()
        private var calls: [[Int]] = []
        init(taken: Int) { self.taken = taken }

        func pick(_ n: Int) -> [Int]? {
            lock.withLock {
                guard var ports = LoopbackHTTP.freePorts(n) else { return nil }
                if calls.isEmpty { ports[0] = taken }
                calls.append(ports)
                return ports
            }
        }

        var handedOut: [[Int]] { lock.withLock { calls } }
    }

    /// A socket listening on 127.0.0.1 on a port of the kernel's choice: (descriptor, port).
    func listeningSocket() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        var addr = LoopbackHTTP.loopback(port: 0)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(fd, 8), 0)
        var out = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &out) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return (fd, Int(UInt16(bigEndian: out.sin_port)))
    }

    /// Live (not zombie) child processes of this test process whose command line mentions `dir`.
    func children(in dir: URL) -> [pid_t] {
        let me = getpid()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, fields[0] != "Z", Int32(fields[1]) == me,
                  let cmdline = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")) else { return false }
            return String(decoding: cmdline, as: UTF8.self).contains(dir.path)
        }.sorted()
    }

    func testComponentsWhosePortIsTakenStartOnAnotherPort() throws {
        try requireTestbedEnvironment()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("port-retry-\(getpid())", isDirectory: true)
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (fd, taken) = try listeningSocket()
        defer { close(fd) }
        let layout = TestbedStack.Layout(
            workDirectory: dir, python: "python3",
            origin: .init(workers: 2, queueMax: 2, serviceSeconds: [0], toOriginSeconds: [0], objects: [LinkShaperTests.object], surrogateKey: "k"),
            shieldSpecs: [], edgeSpecs: [], edgeShield: [], backboneLinks: [], accessLinks: [], cacheMegabytes: 16)

        // The origin: first attempt on the taken port, second on a fresh one.
        let originPicker = Picker(taken: taken)
        let stack = TestbedStack(layout: layout, freePorts: { originPicker.pick($0) })
        defer { stack.stop() }
        try stack.startOrigin(interrupted: { false })
        XCTAssertEqual(originPicker.handedOut.count, 2, "one retry: \(originPicker.handedOut)")
        XCTAssertNotEqual(stack.originPort, taken)
        XCTAssertEqual(stack.originPort, originPicker.handedOut.last?.first)
        let origin = try XCTUnwrap(stack.origin)
        XCTAssertTrue(origin.isRunning)
        XCTAssertEqual(LoopbackHTTP.request(port: stack.originPort, path: LinkShaperTests.object.path, timeoutSeconds: 10)?.body.count,
                       LinkShaperTests.bytes)
        XCTAssertEqual(children(in: dir), [origin.pid], "the failed attempt left a process")

        // A two-listener link shaper whose first port is taken (a fresh stack on the same origin).
        let shaperPicker = Picker(taken: taken)
        let shaperStack = TestbedStack(layout: layout, freePorts: { shaperPicker.pick($0) })
        let link = TestbedStack.Link(name: "l", upstreamPort: stack.originPort, handshakeRoundTrips: 0, links: [[0, 0, 0]])
        let (shaper, ports) = try shaperStack.startShaper("link shaper", name: "retry-shaper", links: [link, link], interrupted: { false })
        defer { shaper.stop() }
        XCTAssertEqual(shaperPicker.handedOut.count, 2, "one retry: \(shaperPicker.handedOut)")
        XCTAssertFalse(ports.contains(taken))
        XCTAssertEqual(ports, shaperPicker.handedOut.last)
        for port in ports {
            XCTAssertEqual(LoopbackHTTP.request(port: port, path: LinkShaperTests.object.path, timeoutSeconds: 10)?.body.count,
                           LinkShaperTests.bytes)
        }
        XCTAssertEqual(children(in: dir), [origin.pid, shaper.pid].sorted(), "the failed attempt left a process")

        shaper.stop()
        stack.stop()
        XCTAssertEqual(children(in: dir), [], "a component is still running")
    }
}
