import InfraModel
import Stochastic
import XCTest
@testable import PushModel

/// Population's Bernoulli and categorical attributes are GSL draws on the device's own stream:
/// shares by gsl_ran_bernoulli, region / network class / bucket / Doze / segment by Walker alias
/// tables (gsl_ran_discrete) built once per run, the network table per region.
final class PopulationDrawTests: XCTestCase {
    func testDeviceAttributesAreGSLDrawsInOrder() throws {
        var c = smallWorld(devices: 500)
        c.infra.topology = TopologyConfig(popCount: 3, shieldCount: 1)
        c.population.regionWeights = [0.5, 0.3, 0.2]
        c.population.regionNetworkMix = [RegionNetworkMixConfig(region: 2, mix: NetworkMixConfig(wifi: 0, fiveG: 0, lte: 0, fourG: 0,
                                                                                                threeG: 1, twoG: 0, slow2G: 0))]
        let seed: UInt64 = 77
        let population = try Population(config: c, runSeed: seed)
        let regions = try DiscreteTable(weights: [0.5, 0.3, 0.2])
        let nets = try DiscreteTable(weights: c.population.networkMix.weights)
        let buckets = try DiscreteTable(weights: c.population.standbyBuckets.weights)
        let doze = try DiscreteTable(weights: c.population.doze.weights)
        let segments = try DiscreteTable(weights: c.users.segments.map(\.share))
        let rng = RandomStream(seed: 1)
        for d in 0..<500 {
            rng.reseed(StreamSeed.derive(masterSeed: seed, entity: UInt64(d), purpose: StreamPurpose("push.device").rawValue))
            let isIOS = rng.bernoulli(c.population.iosShare)
            _ = rng.bernoulli(c.population.iosForceQuitShare)
            let region = regions.draw(rng)
            let net = nets.draw(rng)
            let lowData = rng.bernoulli(c.population.lowDataModeShare)
            let saveData = rng.bernoulli(c.population.saveDataShare)
            let bucket = buckets.draw(rng)
            _ = doze.draw(rng)
            _ = rng.uniform()
            let segment = segments.draw(rng)
            let a = population.device(DeviceID(d))
            XCTAssertEqual(a.isIOS, isIOS, "device \(d)")
            XCTAssertEqual(Int(a.region), region, "device \(d)")
            XCTAssertEqual(a.network, region == 2 ? .threeG : InfraNetworkClass(rawValue: UInt8(net)), "device \(d): region 2 is all 3G")
            XCTAssertEqual(a.lowDataMode, lowData, "device \(d)")
            XCTAssertEqual(a.saveData, saveData, "device \(d)")
            XCTAssertEqual(a.standbyBucket, bucket, "device \(d)")
            XCTAssertEqual(a.segment, segment, "device \(d)")
        }
    }
}
