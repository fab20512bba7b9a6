import Foundation
@testable import InfraModel
import XCTest
@testable import PushModel

/// The users' data p95 (`userData.*P95Bytes`): per-push bytes kept per (device, campaign) for a
/// systematic sample of devices, the nearest rank ⌈0.95 · N⌉ of the sampled pushes.
final class UserDataQuantileTests: XCTestCase {
    /// A mix with known shares, checked by hand: 40 opened pushes of 1 000 × (d + 1) bytes
    /// (1 000 … 40 000) have p95 at rank ⌈0.95 · 40⌉ = 38, 38 000 bytes; 60 never-opened pushes,
    /// 57 of 250 000 bytes and 3 of 900 000, have rank ⌈0.95 · 60⌉ = 57, 250 000 bytes (the three
    /// largest are exactly the top 5 %); one more 900 000 push would move it there.
    func testMixWithKnownShares() throws {
        var s = PushBytesSample(devices: 100, campaigns: 1)
        XCTAssertEqual(s.stride, 1, "100 cells fit: every device is kept")
        for d in 0..<100 {
            let opened = d < 40
            s.noteReached(device: d, campaign: 0, region: 0, network: d % 2 == 0 ? .wifi : .lte, opened: opened)
            s.noteRequest(UInt32(d), device: d, campaign: 0)
            let bytes: UInt64 = opened ? 1_000 * UInt64(d + 1) : (d >= 97 ? 900_000 : 250_000)
            s.add(bytes / 2, request: d)
            s.add(bytes - bytes / 2, request: d)  // two transfers of one push add up
        }
        XCTAssertEqual(s.quantile(0.95) { o, _ in o }, 38_000)
        XCTAssertEqual(s.quantile(0.95) { o, _ in !o }, 250_000)
        let q = s.percentiles95()
        XCTAssertEqual(q.all[1], 38_000)
        XCTAssertEqual(q.all[0], 250_000)
        XCTAssertEqual(q.cellular[1], 38_000)
        // By class: opened pushes on LTE are d = 1, 3, …, 39 (2 000 … 40 000 bytes, 20 of them):
        // rank 19, d = 37, 38 000 bytes.
        XCTAssertEqual(s.quantile(0.95) { o, n in o && n == Int(NetworkClass.lte.rawValue) }, 38_000)
        XCTAssertNil(s.quantile(0.95) { _, n in n == Int(NetworkClass.threeG.rawValue) }, "no push on 3g")
        s.noteReached(device: 0, campaign: 0, region: 0, network: .wifi, opened: true)
        // Device 0 was reached twice with 1 000 bytes: two opened pushes of 500 bytes (41 pushes,
        // rank ⌈38.95⌉ = 39 of 500, 500, 2 000, …, 40 000: 38 000 still).
        XCTAssertEqual(s.quantile(0.95) { o, _ in o }, 38_000)
        XCTAssertEqual(s.quantile(0) { o, _ in o }, 500)
    }

    /// The metrics' one-pass selection equals the sorted nearest rank of each group, on values
    /// with many ties and devices reached up to three times (a fixed pseudo-random sequence).
    func testSelectionEqualsSortedRank() {
        var s = PushBytesSample(devices: 3_000, campaigns: 2)
        var x: UInt64 = 12_345
        func next(_ n: UInt64) -> UInt64 { x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return (x >> 33) % n }
        for d in 0..<3_000 {
            for c in 0..<2 where next(4) != 0 {
                let classes = UInt64(NetworkClass.count)
                let network = NetworkClass(rawValue: UInt8(next(classes))) ?? .wifi
                for _ in 0...next(3) { s.noteReached(device: d, campaign: c, region: 0, network: network, opened: next(3) == 0) }
                s.noteRequest(UInt32(d * 2 + c), device: d, campaign: c)
                s.add(next(5) == 0 ? 48_200 : 1_000 * next(200), request: d * 2 + c)
            }
        }
        let q = s.percentiles95()
        let wifi = Int(NetworkClass.wifi.rawValue)
        for opened in [true, false] {
            let o = opened ? 1 : 0
            XCTAssertEqual(q.all[o], s.quantile(0.95) { op, _ in op == opened })
            XCTAssertEqual(q.cellular[o], s.quantile(0.95) { op, n in op == opened && n != wifi })
            for c in 0..<NetworkClass.count {
                XCTAssertEqual(q.classes[o][c], s.quantile(0.95) { op, n in op == opened && n == c }, "opened \(opened), class \(c)")
            }
        }
        var a = [3.0, 1, 2, 2, 2, 5, 4]
        XCTAssertEqual(PushBytesSample.select(&a, rank: 1), 1)
        XCTAssertEqual(PushBytesSample.select(&a, rank: 4), 2)
        XCTAssertEqual(PushBytesSample.select(&a, rank: 7), 5)
    }

    /// Per region, by hand: region 0 holds 20 opened pushes of 1 000 × (d + 1) bytes (rank
    /// ⌈0.95 · 20⌉ = 19: 19 000), region 1 ten never-opened pushes of 500 × (d + 1) (rank 10: the
    /// largest, 5 000), region 2 none; a cell of a region past the count is left out.
    func testRegionP95ByHand() {
        var s = PushBytesSample(devices: 40, campaigns: 1)
        for d in 0..<30 {
            let region: UInt32 = d < 20 ? 0 : 1
            s.noteReached(device: d, campaign: 0, region: region, network: .lte, opened: d < 20)
            s.noteRequest(UInt32(d), device: d, campaign: 0)
            s.add(d < 20 ? 1_000 * UInt64(d + 1) : 500 * UInt64(d - 19), request: d)
        }
        s.noteReached(device: 35, campaign: 0, region: 7, network: .lte, opened: true)
        let q = s.regionPercentiles95(regions: 3)
        XCTAssertEqual(q[1], [19_000, nil, nil])
        XCTAssertEqual(q[0], [nil, 5_000, nil])
        XCTAssertEqual(s.regionPercentiles95(regions: 0), [[], []])
    }

    /// On a simulated run where every push fetches one image of B bytes (as below), every
    /// region's never-opened p95 is B to the byte and its opened p95 B or 2 B; every region with
    /// devices is listed, in order.
    func testEveryRegionOfOneAssetWorld() throws {
        let c = oneAssetWorld(devices: 1_500)
        let b = Double(c.campaigns[0].assets[0].bytes)
        let r = try simulate(c, seed: 5)
        let regions = try XCTUnwrap(r.userDataRegions)
        XCTAssertEqual(regions.map(\.region), Array(0..<regions.count))
        XCTAssertGreaterThan(regions.count, 1)
        for u in regions {
            XCTAssertEqual(u.neverOpenedP95Bytes, b, "region \(u.region)")
            let opened = try XCTUnwrap(u.openedP95Bytes)
            XCTAssertTrue(opened == b || opened == 2 * b, "region \(u.region): opened p95 \(opened)")
        }
    }

    /// Past `cellsMax` cells every k-th device is kept, k = ⌈devices × campaigns / cellsMax⌉, and
    /// requests of devices outside the sample count nowhere.
    func testSystematicSampleBoundsMemory() {
        var s = PushBytesSample(devices: 5_000_000, campaigns: 2)
        let k = (5_000_000 * 2 + PushBytesSample.cellsMax - 1) / PushBytesSample.cellsMax
        XCTAssertEqual(s.stride, k)
        XCTAssertLessThanOrEqual(s.cells.count, PushBytesSample.cellsMax + 2)
        XCTAssertEqual(s.cell(device: 1, campaign: 0), -1)
        XCTAssertEqual(s.cell(device: k, campaign: 1), 3)
        s.noteRequest(7, device: 1, campaign: 0)
        s.add(1_000, request: 7)
        XCTAssertEqual(s.cells.reduce(0) { $0 + $1.bytes }, 0)
    }

    /// Every push fetches exactly one image of B bytes (one critical asset, every network fast and
    /// reliable, nothing stored before): a never-opened push's bytes are B (its pre-stage), so
    /// the p95 is B to the byte, overall, on cellular and per class. An opened push adds a
    /// foreground fetch only when its pre-stage did not store the image, so its p95 is B or 2 B.
    func testEveryPushFetchesOneAsset() throws {
        let c = oneAssetWorld(devices: 1_500)
        let b = Double(c.campaigns[0].assets[0].bytes)
        let r = try simulate(c, seed: 5)
        XCTAssertEqual(r.value(MetricID.userDataNeverOpenedP95Bytes.rawValue), b)
        XCTAssertEqual(r.value(MetricID.userDataCellularNeverOpenedP95Bytes.rawValue), b)
        XCTAssertEqual(r.value(MetricTable.userDataP95(network: "wifi", opened: false).name), b)
        let opened = r.value(MetricID.userDataOpenedP95Bytes.rawValue)
        XCTAssertTrue(opened == b || opened == 2 * b, "opened p95 \(opened)")
        // The mean is below or at the p95 here (no push fetches more than B before its tap).
        XCTAssertLessThanOrEqual(r.value(MetricID.userDataNeverOpenedMeanBytes.rawValue), b)
        XCTAssertNotNil(MetricTable.spec(named: MetricTable.userDataP95(network: "lte", opened: true).name))
    }
}
