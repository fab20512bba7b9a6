import Foundation
import InfraModel
import XCTest
@testable import PushModel

/// A small, fast world: `devices` devices, 8 PoPs / 2 shields, one default campaign at t = 300 s,
/// a 1 h horizon.
func smallWorld(devices: Int = 3_000) -> PushWorldConfig {
    var c = PushWorldConfig()
    c.population.devices = devices
    c.horizonSeconds = 3_600
    c.infra.topology = TopologyConfig(popCount: 8, shieldCount: 2)
    c.infra.metricsHorizonSeconds = 3_600
    c.campaigns[0].sendStartSeconds = 300
    return c
}

/// One critical image, no warming, every network fast and reliable.
func oneAssetWorld(devices: Int = 1_000) -> PushWorldConfig {
    var c = smallWorld(devices: devices)
    c.campaigns[0].assets = [AssetConfig()]
    c.population.lowDataModeShare = 0
    c.population.saveDataShare = 0
    c.infra.placeholder.enabled = false
    for cls in InfraNetworkClass.allCases {
        c.infra.networks[cls] = NetworkProfile(rttSeconds: .constant(value: 0.05), downlinkBitsPerSecond: .constant(value: 50e6),
                                               failureProbability: 0, stallProbability: 0, sharedCapacityBitsPerSecond: 0)
    }
    return c
}

/// `smallWorld` in three time zones (`placeInThreeTimeZones`, the UTC clock at 08:00 at t = 0)
/// with campaign 0 sent at 09:00 local (waves at 0, 1 h and 6 h) far faster than the audience;
/// its pushes arrive `deliveryLatencySeconds` after their send.
func nineAmLocalWorld(devices: Int, deliveryLatencySeconds: Double) -> PushWorldConfig {
    var c = smallWorld(devices: devices)
    placeInThreeTimeZones(&c, clockAtStartSeconds: 8 * 3_600)
    c.campaigns[0].sendAtLocalSeconds = 9 * 3_600
    c.campaigns[0].sendStartSeconds = 0
    c.campaigns[0].sendRatePerMinute = 6e6
    c.campaigns[0].providerQuotaPerMinute = 6e6
    c.campaigns[0].deliveryLatencySeconds = .constant(value: deliveryLatencySeconds)
    return c
}

/// Three named regions ("east", "central", "west") at UTC+1, UTC and UTC−5, one PoP each, over
/// 8 hours of virtual time, the UTC clock reading `clockAtStartSeconds` at t = 0.
func placeInThreeTimeZones(_ c: inout PushWorldConfig, clockAtStartSeconds: Double) {
    c.horizonSeconds = 8 * 3_600
    c.infra.metricsHorizonSeconds = 8 * 3_600
    c.infra.topology = TopologyConfig(popCount: 3, shieldCount: 1,
                                      regions: [RegionConfig(popIndex: 0), RegionConfig(popIndex: 1), RegionConfig(popIndex: 2)])
    c.infra.topology.regionNames = ["east", "central", "west"]
    c.infra.topology.regions[0].utcOffsetSeconds = 3_600
    c.infra.topology.regions[1].utcOffsetSeconds = 0
    c.infra.topology.regions[2].utcOffsetSeconds = -5 * 3_600
    c.population.dozeNight.clockAtStartSeconds = clockAtStartSeconds
}

func simulate(_ c: PushWorldConfig, seed: UInt64, replication: Int = 0, file: StaticString = #filePath, line: UInt = #line) throws -> ReplicationResult {
    do {
        return try PushSimulation.run(c, masterSeed: seed, replication: replication)
    } catch {
        XCTFail("run failed (seed \(seed)): \(error)", file: file, line: line)
        throw error
    }
}

extension ReplicationResult {
    /// The metric's value, or NaN when absent (comparisons with NaN fail).
    func value(_ name: String) -> Double { metric(name) ?? .nan }
}

/// Deterministic JSON of a result.
func encoded(_ r: ReplicationResult) throws -> Data {
    let e = JSONEncoder()
    e.outputFormatting = [.sortedKeys]
    return try e.encode(r)
}
