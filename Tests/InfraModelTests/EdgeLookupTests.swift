import SimKernel
import XCTest
@testable import InfraModel

/// `FetchResult.edgeLookup` says whether a request reached the PoP and whether its lookup hit,
/// independent of how it ended; `supersededCopy` marks a response generated before the latest
/// purge of its surrogate key.
final class EdgeLookupTests: XCTestCase {
    private func world(_ config: InfraConfig, surrogateKey: UInt32? = nil) throws -> Driver {
        var catalog = ObjectCatalog()
        try catalog.add(bytes: 50_000, policy: CachePolicy(), surrogateKey: surrogateKey)
        return Driver(world: try InfraWorld(config: config, catalog: catalog, masterSeed: 1))
    }

    /// Origin 9 s away, request timeout 8 s: the first request misses and then times out, the
    /// second (entity 2) is cancelled while it waits on the same miss, the third is cancelled
    /// before it reaches the PoP (10 ms of set-up RTT), the fourth hits once the fill is in.
    func testEdgeLookupIsKeptWhateverTheEnding() throws {
        var d = try world(deterministicConfig(rttSeconds: 0.1, originSeconds: 9))
        var k = Kernel()
        try d.add(request(object: 0, entity: 1, timeout: .seconds(8)), at: .zero, kernel: &k)
        try d.add(request(object: 0, entity: 2), at: .zero, kernel: &k)
        try d.cancel(1, at: .seconds(2), kernel: &k)
        try d.add(request(object: 0, entity: 3), at: .seconds(1), kernel: &k)
        try d.cancel(2, at: .seconds(1.01), kernel: &k)
        try d.add(request(object: 0, entity: 4), at: .seconds(20), kernel: &k)
        _ = try k.run(&d)
        let r = d.resultOfRequest.map { d.results[$0] }
        XCTAssertEqual(r.map(\.outcome), [.timeout, .cancelled, .cancelled, .edgeFreshHit])
        XCTAssertEqual(r.map(\.edgeLookup), [.miss, .miss, .notReached, .hit])
        XCTAssertEqual(d.world.counters[0].deviceRequests, 3, "three requests reached the edge")
        XCTAssertEqual(d.world.counters[0].deviceHits, 1)
    }

    /// A network failure never reaches the PoP; a placeholder redirect is an edge hit.
    func testFailureAndPlaceholder() throws {
        var config = deterministicConfig()
        config.networks[.twoG].failureProbability = 1
        config.placeholder.enabled = true
        config.placeholder.onSaveData = true
        var d = try world(config)
        var k = Kernel()
        try d.add(request(object: 0, network: .twoG, entity: 1), at: .zero, kernel: &k)
        var saveData = request(object: 0, entity: 2)
        saveData.saveData = true
        try d.add(saveData, at: .zero, kernel: &k)
        _ = try k.run(&d)
        let r = d.resultOfRequest.map { d.results[$0] }
        XCTAssertEqual(r.map(\.outcome), [.networkFailure, .placeholder])
        XCTAssertEqual(r.map(\.edgeLookup), [.notReached, .hit])
    }

    /// A 5 s purge: between the purge call (t = 10 s) and its arrival at the PoP (t = 15 s) the
    /// PoP still serves the copy generated before the purge (superseded); a request before the
    /// purge call gets the then-current copy, one after the arrival a new copy from the origin.
    func testSupersededCopiesUntilThePurgeArrives() throws {
        var config = deterministicConfig(hopSeconds: 0.01, originSeconds: 0.1)
        config.purgePropagationSeconds = .constant(value: 5)
        var d = PurgeDriver(inner: try world(config, surrogateKey: 0))
        var k = Kernel()
        try d.inner.add(request(object: 0, entity: 1), at: .zero, kernel: &k)
        try d.inner.add(request(object: 0, entity: 2), at: .seconds(9), kernel: &k)
        try k.schedule(at: .seconds(10), kind: PurgeDriver.purgeKind, target: 0)
        try d.inner.add(request(object: 0, entity: 3), at: .seconds(12), kernel: &k)
        try d.inner.add(request(object: 0, entity: 4), at: .seconds(16), kernel: &k)
        try d.inner.add(request(object: 0, entity: 5), at: .seconds(17), kernel: &k)
        _ = try k.run(&d)
        let r = d.inner.resultOfRequest.map { d.inner.results[$0] }
        XCTAssertEqual(r.map(\.outcome), [.miss, .edgeFreshHit, .edgeFreshHit, .miss, .edgeFreshHit])
        XCTAssertEqual(r.map(\.supersededCopy), [false, false, true, false, false])
    }
}
