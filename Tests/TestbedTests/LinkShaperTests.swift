import Foundation
import XCTest
@testable import Testbed

/// The user-space link shaper moves bytes at the configured rate after the configured delays.
///
/// A response of B bytes on a new connection through a listener with round-trip time R, rate r
/// and h handshake round trips arrives after T = (h + 1)·R + 8·B/r: the first request byte is
/// held h·R, the request travels R/2 up, the response R/2 down, and the body is paced at r.
/// Bounds: T ≥ that value minus one 10 ms slice (the pacing releases each slice when the previous
/// one is serialised, so the last slice can land up to one slice early relative to a fluid model),
/// and T ≤ 1.05·that value + 0.5 s (the Python event loop and the origin on a shared machine; when
/// the loop runs late while bytes wait, the shaper catches up on its schedule, so scheduling delays
/// do not accumulate per slice).
final class LinkShaperTests: XCTestCase {
    static let bytes = 1 << 20
    static let rttSeconds = 0.070
    static let bitsPerSecond = 2e6
    static let handshakeRoundTrips = 1

    var expectedSeconds: Double {
        Double(Self.handshakeRoundTrips + 1) * Self.rttSeconds + Double(Self.bytes) * 8 / Self.bitsPerSecond
    }

    func testShapedMegabyteTakesTheExpectedTimeOnEachConnection() throws {
        try requireTestbedEnvironment()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shaper-test-\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let object = TestbedCatalog.Object(path: "/one-mebibyte.bin", bytes: Int64(Self.bytes), contentType: "application/octet-stream",
                                           prefix: [1, 2, 3], cacheControl: "no-store")
        let layout = TestbedStack.Layout(
            workDirectory: dir, python: "python3",
            origin: .init(workers: 8, queueMax: 8, serviceSeconds: [0], toOriginSeconds: [0], objects: [object], surrogateKey: "k"),
            shieldSpecs: [], edgeSpecs: [], edgeShield: [], backboneLinks: [], accessLinks: [], cacheMegabytes: 16)
        let stack = TestbedStack(layout: layout)
        try stack.startOrigin(interrupted: { false })
        defer { stack.stop() }
        // Three connections on one listener: shaping is per connection, so each takes T, not 3T.
        let link = TestbedStack.Link(name: "test", upstreamPort: stack.originPort, handshakeRoundTrips: Self.handshakeRoundTrips,
                                     links: [[Self.rttSeconds, Self.bitsPerSecond]])
        let (shaper, ports) = try stack.startShaper("link shaper", name: "test-shaper", links: [link], interrupted: { false })
        defer { shaper.stop() }
        let results = ResultBox<[(Double, Int)]>()
        results.set([])
        let group = DispatchGroup()
        let lock = NSLock()
        for _ in 0..<3 {
            group.enter()
            Thread {
                let began = Date()
                let r = LoopbackHTTP.request(port: ports[0], path: object.path, timeoutSeconds: 30)
                let took = Date().timeIntervalSince(began)
                lock.withLock { results.set((results.get() ?? []) + [(took, r?.body.count ?? -1)]) }
                group.leave()
            }.start()
        }
        group.wait()
        let all = results.get() ?? []
        XCTAssertEqual(all.map(\.1), [Self.bytes, Self.bytes, Self.bytes])
        let lower = expectedSeconds - 0.010
        let upper = 1.05 * expectedSeconds + 0.5
        for (t, _) in all {
            XCTAssertGreaterThanOrEqual(t, lower, "expected ≥ \(lower) s (T = \(expectedSeconds) s)")
            XCTAssertLessThanOrEqual(t, upper, "expected ≤ \(upper) s (T = \(expectedSeconds) s)")
        }
    }
}
