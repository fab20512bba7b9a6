import XCTest
import SimKernel
@testable import InfraModel

/// Validators between the tiers: a node revalidating its stored copy sends the copy's ETag
/// (`If-None-Match`); the upstream answers 304 without a body when its version is the same.
final class ConditionalRevalidationTests: XCTestCase {
    private let objectBytes: Int64 = 50_000

    private func world(_ config: InfraConfig, policy: CachePolicy, surrogateKey: UInt32? = nil) throws -> Driver {
        var catalog = ObjectCatalog()
        try catalog.add(bytes: objectBytes, policy: policy, surrogateKey: surrogateKey)
        return Driver(world: try InfraWorld(config: config, catalog: catalog, masterSeed: 1))
    }

    /// One PoP, one shield, max-age 10 s, a request every 20 s for 200 s. The first request
    /// misses everywhere (one full body from the origin and from the shield). Each later one
    /// finds the PoP's copy stale (age ≥ 10 s, within stale-while-revalidate), is served from it
    /// and revalidates it at the shield, whose copy is stale too: the shield answers the PoP from
    /// its copy and revalidates with the origin. With validators every one of those 2 × 10
    /// answers is a 304 (nothing changed): origin and shield egress = body + 10 × 304. Without,
    /// each is a full body: 11 bodies each. The devices get the same 11 bodies either way.
    func testUnchangedCopiesRevalidateWith304() throws {
        let policy = CachePolicy(maxAgeSeconds: 10, staleWhileRevalidateSeconds: 1_000)
        var results: [Bool: Driver] = [:]
        for validators in [true, false] {
            var config = deterministicConfig(hopSeconds: 0.01, originSeconds: 0.1)
            config.origin.sendsValidators = validators
            var d = try world(config, policy: policy)
            var k = Kernel()
            for i in 0...10 { try d.add(request(object: 0, entity: UInt64(i)), at: .seconds(Double(20 * i)), kernel: &k) }
            _ = try k.run(&d)
            assertConservation(d.world)
            results[validators] = d
        }
        let with = try XCTUnwrap(results[true]), without = try XCTUnwrap(results[false])
        let notModified = with.world.config.tiers.notModifiedBytes
        XCTAssertEqual(with.world.originCounters.requests, 11)
        XCTAssertEqual(with.world.originCounters.notModified, 10)
        XCTAssertEqual(with.world.originCounters.bytesServed, UInt64(objectBytes + 10 * notModified))
        XCTAssertEqual(with.world.tierCounters(.shield).notModified, 10)
        XCTAssertEqual(with.world.tierCounters(.shield).bytesServed, UInt64(objectBytes + 10 * notModified))
        XCTAssertEqual(without.world.originCounters.notModified, 0)
        XCTAssertEqual(without.world.originCounters.bytesServed, UInt64(11 * objectBytes))
        XCTAssertEqual(without.world.tierCounters(.shield).bytesServed, UInt64(11 * objectBytes))
        for d in [with, without] {
            XCTAssertEqual(d.world.tierCounters(.edge).bytesServed, UInt64(11 * objectBytes), "devices get every body")
            XCTAssertEqual(d.results.map(\.outcome), [.miss] + [FetchOutcome](repeating: .edgeStaleHit, count: 10))
        }
    }

    /// A copy past stale-while-revalidate is still stored: the miss that follows sends its ETag,
    /// and the 304 refreshes it (the device still gets the body, from the PoP's copy).
    func testExpiredCopyMissRevalidatesConditionally() throws {
        var config = deterministicConfig(hopSeconds: 0.01, originSeconds: 0.1)
        config.tiers.tieringEnabled = false
        var d = try world(config, policy: CachePolicy(maxAgeSeconds: 10, staleWhileRevalidateSeconds: 0))
        var k = Kernel()
        try d.add(request(object: 0, entity: 1), at: .zero, kernel: &k)
        try d.add(request(object: 0, entity: 2), at: .seconds(30), kernel: &k)
        _ = try k.run(&d)
        XCTAssertEqual(d.results.map(\.outcome), [.miss, .miss])
        XCTAssertEqual(d.results.map(\.bytes), [objectBytes, objectBytes])
        XCTAssertEqual(d.world.originCounters.notModified, 1)
        XCTAssertEqual(d.world.originCounters.bytesServed, UInt64(objectBytes + config.tiers.notModifiedBytes))
        assertConservation(d.world)
    }

    /// A purge makes a new version at the origin (the creative changed): a node still holding
    /// the old copy (the purge has not reached it) revalidates and gets 200 with the new body;
    /// the next revalidation of the new copy gets 304 again.
    func testNewVersionAfterPurgeIsA200() throws {
        var config = deterministicConfig(hopSeconds: 0.01, originSeconds: 0.1)
        config.tiers.tieringEnabled = false
        config.purgePropagationSeconds = .constant(value: 10_000) // never reaches the PoP here
        var d = PurgeDriver(inner: try world(config, policy: CachePolicy(maxAgeSeconds: 10, staleWhileRevalidateSeconds: 1_000),
                                             surrogateKey: 0))
        var k = Kernel()
        try d.inner.add(request(object: 0, entity: 1), at: .zero, kernel: &k)       // 200 (version 0)
        try d.inner.add(request(object: 0, entity: 2), at: .seconds(20), kernel: &k) // stale hit, 304
        try k.schedule(at: .seconds(30), kind: PurgeDriver.purgeKind, target: 0)          // origin now has version 1
        try d.inner.add(request(object: 0, entity: 3), at: .seconds(40), kernel: &k) // stale hit (old creative), 200 version 1
        try d.inner.add(request(object: 0, entity: 4), at: .seconds(60), kernel: &k) // stale hit (new creative), 304
        _ = try k.run(&d)
        let w = d.inner.world
        XCTAssertEqual(w.originCounters.requests, 4)
        XCTAssertEqual(w.originCounters.notModified, 2)
        XCTAssertEqual(w.originCounters.bytesServed, UInt64(2 * objectBytes + 2 * config.tiers.notModifiedBytes))
        XCTAssertEqual(d.inner.results.map(\.supersededCopy), [false, false, true, false])
        assertConservation(w)
    }

    /// A device's conditional request (`ifNoneMatch` = 1 + the version it holds) is answered 304,
    /// headers only, when the copy the PoP serves has that version, and 200 with the body and
    /// the new version otherwise. Cold PoP at 0 s: the miss is served version 0 from the origin,
    /// so a device holding version 0 gets a 304 even on a miss. At 20 s the PoP's stale copy
    /// (version 0) answers a 304. Purged at 30 s (the purge never reaches the PoP): at 40 s the
    /// PoP still serves its version-0 copy (304; its revalidation brings version 1), at 60 s it
    /// serves version 1, so the device holding version 0 gets the body and tag 1 + 1; a device
    /// holding version 1 at 80 s gets a 304. An unconditional request always gets the body.
    func testDeviceConditionalRequestIsA304WhenThePoPCopyHasItsVersion() throws {
        var config = deterministicConfig(hopSeconds: 0.01, originSeconds: 0.1)
        config.tiers.tieringEnabled = false
        config.purgePropagationSeconds = .constant(value: 10_000)
        var d = PurgeDriver(inner: try world(config, policy: CachePolicy(maxAgeSeconds: 10, staleWhileRevalidateSeconds: 1_000),
                                             surrogateKey: 0))
        var k = Kernel()
        func conditional(_ entity: UInt64, version: UInt32?) -> FetchRequest {
            var r = request(object: 0, entity: entity)
            r.ifNoneMatch = version.map { $0 + 1 } ?? 0
            return r
        }
        try d.inner.add(conditional(1, version: 0), at: .zero, kernel: &k)
        try d.inner.add(conditional(2, version: 0), at: .seconds(20), kernel: &k)
        try k.schedule(at: .seconds(30), kind: PurgeDriver.purgeKind, target: 0)
        try d.inner.add(conditional(3, version: 0), at: .seconds(40), kernel: &k)
        try d.inner.add(conditional(4, version: 0), at: .seconds(60), kernel: &k)
        try d.inner.add(conditional(5, version: 1), at: .seconds(80), kernel: &k)
        try d.inner.add(conditional(6, version: nil), at: .seconds(100), kernel: &k)
        _ = try k.run(&d)
        let headers = config.tiers.notModifiedBytes
        XCTAssertEqual(d.inner.results.map(\.notModified), [true, true, true, false, true, false])
        XCTAssertEqual(d.inner.results.map(\.version), [0, 0, 0, 1, 1, 1])
        XCTAssertEqual(d.inner.results.map(\.bytes), [headers, headers, headers, objectBytes, headers, objectBytes])
        XCTAssertEqual(d.inner.world.tierCounters(.edge).bytesServed, UInt64(4 * headers + 2 * objectBytes))
        assertConservation(d.inner.world)
    }
}
