import Foundation
import XCTest
import InfraModel
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

    static let object = TestbedCatalog.Object(path: "/one-mebibyte.bin", bytes: Int64(bytes), contentType: "application/octet-stream",
                                              prefix: [1, 2, 3], cacheControl: "no-store")

    /// A stack with the origin alone, serving ``object``, in a fresh directory (removed by the caller).
    func originStack(_ name: String) throws -> (TestbedStack, URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())", isDirectory: true)
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let layout = TestbedStack.Layout(
            workDirectory: dir, python: "python3",
            origin: .init(workers: 8, queueMax: 8, serviceSeconds: [0], toOriginSeconds: [0], objects: [Self.object], surrogateKey: "k"),
            shieldSpecs: [], edgeSpecs: [], edgeShield: [], backboneLinks: [], accessLinks: [], cacheMegabytes: 16, lossSeed: 42)
        let stack = TestbedStack(layout: layout)
        try stack.startOrigin(interrupted: { false })
        return (stack, dir)
    }

    func testShapedMegabyteTakesTheExpectedTimeOnEachConnection() throws {
        try requireTestbedEnvironment()
        let (stack, dir) = try originStack("shaper-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { stack.stop() }
        let object = Self.object
        // Three connections on one listener: shaping is per connection, so each takes T, not 3T.
        let link = TestbedStack.Link(name: "test", upstreamPort: stack.originPort, handshakeRoundTrips: Self.handshakeRoundTrips,
                                     links: [[Self.rttSeconds, Self.bitsPerSecond, 0]])
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

    /// A foreground fetch ends at its time-out even while bytes keep arriving. Through a link at
    /// 1 Mbit/s the 1 MiB object takes T ≈ 8.5 s, every byte well within URLSession's idle
    /// time-out, so only a bound on the whole fetch stops it: with a 2 s time-out the fetch fails
    /// and returns within 2 s plus 1.5 s of slack (cancellation and a shared machine), far below T.
    func testForegroundFetchEndsAtItsTimeOutWhileBytesStillArrive() async throws {
        try requireTestbedEnvironment()
        let (stack, dir) = try originStack("foreground-timeout-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { stack.stop() }
        let link = TestbedStack.Link(name: "slow", upstreamPort: stack.originPort, handshakeRoundTrips: 1,
                                     links: [[0.020, 1e6, 0]])
        let (shaper, ports) = try stack.startShaper("link shaper", name: "slow-shaper", links: [link], interrupted: { false })
        defer { shaper.stop() }
        let url = "http://127.0.0.1:\(ports[0])\(Self.object.path)"
        let began = Date()
        let (ok, _) = await DeviceFleet.foregroundFetch([url], timeoutSeconds: 2)
        let took = Date().timeIntervalSince(began)
        XCTAssertFalse(ok, "the transfer needs about 8.5 s, beyond the 2 s time-out")
        XCTAssertLessThan(took, 3.5, "the fetch ran \(took) s past a 2 s time-out")
        XCTAssertGreaterThanOrEqual(took, 1.9, "ended before its time-out")
    }

    /// With segment loss p, a connection whose response lost k segments takes T + k·RTO
    /// (RTO = RTT + 200 ms, ``LossRecovery``), within the bounds above applied to T + k·RTO; the
    /// shaper reports each connection's k. Over c connections of n segments each (n from the bytes
    /// the shaper sent down), Σk is Binomial(c·n, p): it must lie within 5 standard deviations,
    /// √(c·n·p·(1 − p)), of c·n·p (a correct shaper fails with probability below 6e-7). So the
    /// expected time of one transfer is T + n·p·RTO. The draws are seeded: the same listener and
    /// connection index lose the same segments in another run.
    func testSegmentLossAddsOneTimeoutPerLostSegment() throws {
        try requireTestbedEnvironment()
        let (stack, dir) = try originStack("shaper-loss-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        defer { stack.stop() }
        let rtt = 0.050, rate = 8e6, p = 0.01, connections = 3
        let rto = LossRecovery.timeoutSeconds(rttSeconds: rtt)
        let base = Double(Self.handshakeRoundTrips + 1) * rtt + Double(Self.bytes) * 8 / rate
        let link = TestbedStack.Link(name: "lossy", upstreamPort: stack.originPort, handshakeRoundTrips: Self.handshakeRoundTrips,
                                     links: [[rtt, rate, rto]], segmentLossProbability: p)
        func run(_ count: Int) throws -> (times: [Double], lost: [Int], bytesDown: Int) {
            let (shaper, ports) = try stack.startShaper("link shaper", name: "loss-shaper", links: [link], interrupted: { false })
            var times: [Double] = []
            for _ in 0..<count {  // one at a time: connection i is the i-th request
                let began = Date()
                let r = LoopbackHTTP.request(port: ports[0], path: Self.object.path, timeoutSeconds: 60)
                times.append(Date().timeIntervalSince(began))
                XCTAssertEqual(r?.body.count, Self.bytes)
            }
            shaper.stop()  // SIGTERM: the shaper writes its counts
            let data = try Data(contentsOf: stack.statsURL("loss-shaper"))
            let stats = try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["lossy"] as? [String: Any])
            return (times, try XCTUnwrap(stats["lostSegments"] as? [Int]), try XCTUnwrap(stats["bytesDown"] as? Int))
        }
        let first = try run(connections)
        XCTAssertEqual(first.lost.count, connections)
        for (t, k) in zip(first.times, first.lost) {
            let expected = base + Double(k) * rto
            XCTAssertGreaterThanOrEqual(t, expected - 0.010, "\(k) lost: expected ≥ \(expected - 0.010) s")
            XCTAssertLessThanOrEqual(t, 1.05 * expected + 0.5, "\(k) lost: expected ≤ \(1.05 * expected + 0.5) s")
        }
        let n = Double(LossRecovery.segments(bytes: Int64(first.bytesDown / connections)))
        let trials = Double(connections) * n
        let total = Double(first.lost.reduce(0, +))
        XCTAssertEqual(total, trials * p, accuracy: 5 * (trials * p * (1 - p)).squareRoot(), "segments lost over \(Int(trials))")
        XCTAssertGreaterThan(total, 0)
        let again = try run(1)
        XCTAssertEqual(again.lost, [first.lost[0]], "the first connection's losses are seeded")
    }
}
