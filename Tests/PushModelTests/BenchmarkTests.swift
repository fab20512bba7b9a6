import Foundation
import XCTest
@testable import PushModel

/// Throughput benchmark, skipped unless `PRESTAGE_PUSH_BENCH_DEVICES` is set. Run in release:
/// `PRESTAGE_PUSH_BENCH_DEVICES=100000 swift test -c release -Xswiftc -enable-testing --filter BenchmarkTests`
/// (wrap in `/usr/bin/time -v` for the peak RSS).
final class BenchmarkTests: XCTestCase {
    func testDefaultWorldThroughput() throws {
        guard let text = ProcessInfo.processInfo.environment["PRESTAGE_PUSH_BENCH_DEVICES"], let devices = Int(text) else {
            throw XCTSkip("set PRESTAGE_PUSH_BENCH_DEVICES to run")
        }
        var c = PushWorldConfig()
        c.population.devices = devices
        c.horizonSeconds = 7_200
        c.infra.metricsHorizonSeconds = 7_200
        c.campaigns[0].warm = WarmConfig(mode: .allPops, aheadSeconds: 300)
        let start = Date()
        let r = try PushSimulation.run(c, masterSeed: 1, replication: 0)
        let wall = Date().timeIntervalSince(start)
        print("devices \(devices) events \(r.eventsProcessed) wall \(String(format: "%.2f", wall)) s events/s \(Int(Double(r.eventsProcessed) / wall))")
        XCTAssertEqual(r.outcomes.total, r.pushesTargeted)
        XCTAssertEqual(r.pushesTargeted, UInt64(devices))
    }
}
