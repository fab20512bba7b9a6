import XCTest
import SimKernel
@testable import InfraModel

/// Byte ranges of one object (`ObjectCatalog.add(rangeOf:bytes:)`): the caches see the object,
/// filled whole on a miss; the device gets the range's bytes; a range of a cached object is a hit.
final class RangeObjectTests: XCTestCase {
    func testRangesShareTheObjectsCacheEntryFilledWhole() throws {
        var config = deterministicConfig()
        config.tiers.tieringEnabled = false
        var catalog = ObjectCatalog()
        let file = try catalog.add(bytes: 10_000)
        let first = try catalog.add(rangeOf: file, bytes: 1_000)
        let second = try catalog.add(rangeOf: file, bytes: 2_500)
        XCTAssertEqual(catalog.cacheObject, [file, file, file])
        var d = Driver(world: try InfraWorld(config: config, catalog: catalog, masterSeed: 3))
        var k = Kernel()
        try d.add(request(object: first, entity: 1), at: .zero, kernel: &k)
        try d.add(request(object: second, entity: 2), at: .seconds(1), kernel: &k)
        try d.add(request(object: file, entity: 3), at: .seconds(2), kernel: &k)
        _ = try k.run(&d)
        assertConservation(d.world)
        let results = d.resultOfRequest.map { d.results[$0] }
        XCTAssertEqual(results.map(\.outcome), [.miss, .edgeFreshHit, .edgeFreshHit], "the second range and the file hit the entry the first filled")
        XCTAssertEqual(results.map(\.bytes), [1_000, 2_500, 10_000], "each response carries what was asked")
        XCTAssertEqual(d.world.upstreamBytes.bytes(object: Int(file), tier: .origin, warm: false), 10_000, "the miss filled the whole object")
        XCTAssertEqual(d.world.upstreamBytes.bytes(object: Int(first), tier: .origin, warm: false), 0, "a range is never fetched upstream itself")
    }

    func testARangeMustFitAWholeObject() throws {
        var catalog = ObjectCatalog()
        let file = try catalog.add(bytes: 100)
        let range = try catalog.add(rangeOf: file, bytes: 100)
        XCTAssertThrowsError(try catalog.add(rangeOf: file, bytes: 101))
        XCTAssertThrowsError(try catalog.add(rangeOf: file, bytes: 0))
        XCTAssertThrowsError(try catalog.add(rangeOf: range, bytes: 10), "a range of a range")
        XCTAssertThrowsError(try catalog.add(rangeOf: 7, bytes: 10), "an unknown object")
    }
}
