import Foundation
import XCTest
@testable import PushModel

final class SmokeTests: XCTestCase {
    func testDefaultWorldRuns() throws {
        var c = PushWorldConfig()
        c.infra.topology.popCount = 10
        c.infra.topology.shieldCount = 2
        let r = try PushSimulation.run(c, masterSeed: 1, replication: 0)
        print(r.outcomes, r.pushesTargeted)
        for m in r.metrics { print(m.name, m.value) }
        print(r.tiers, r.prestage, r.eventsProcessed, r.stopReason)
    }
}
