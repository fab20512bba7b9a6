import Foundation
import InfraModel
import PreloadKit
import XCTest
@testable import PushModel

/// An HLS asset with `hlsByteRanges` in the simulator: each variant is one file whose parts the
/// media playlist addresses by byte range; the CDN holds one object per variant and answers the
/// parts as ranges of it; PreloadKit stores each range as its own entry.
final class HLSByteRangeWorldTests: XCTestCase {
    static func trailer(byteRanges: Bool) -> AssetConfig {
        var a = HLSPlaylistWorldTests.trailer([200, 800])
        a.hlsByteRanges = byteRanges
        return a
    }

    /// The catalogue holds master + per variant (media playlist, the file, the init section's and
    /// 5 segments' ranges of it); PreloadKit parses the generated media playlist into exactly the
    /// ranges the catalogue serves (206 with their `Content-Range`); the paint set is master +
    /// the chosen variant's playlist + the init section's and first two segments' range keys.
    func testPlansServeRangesOfOneFilePerVariant() throws {
        var c = CampaignConfig()
        c.assets = [Self.trailer(byteRanges: true)]
        let plans = try CampaignPlans(campaigns: [c], hlsSegmentsToPreStage: 2)
        XCTAssertEqual(plans.catalog.count, 1 + 2 * 8 + 1, "master, 2 × (playlist, file, init + 5 segment ranges), the token endpoint")
        let asset = c.assets[0]
        // 800 kbit/s × 2 s / 8 = 200 000 bytes a segment; the file is 1 000 + 5 × 200 000.
        XCTAssertEqual(CampaignPlans.hlsFileBytes(asset, kbps: 800), 1_001_000)
        let mediaText = CampaignPlans.hlsByteRangeMedia(asset, kbps: 800)
        guard case .media(let initURI, let initRange, let segments) = try HLSPlaylist.parse(Array(mediaText.utf8), segmentsWanted: 5,
                                                                                          variantsMax: 32, playlistBytesMax: 262_144)
        else { return XCTFail("a media playlist") }
        XCTAssertEqual(initURI, "main.mp4")
        XCTAssertEqual(initRange, CampaignPlans.hlsPartRange(asset, kbps: 800, part: 0))
        XCTAssertEqual(segments.map(\.range), (1...5).map { CampaignPlans.hlsPartRange(asset, kbps: 800, part: $0) },
                       "the implied offsets follow each other through the file")
        XCTAssertEqual(segments.last?.range?.end, 1_001_000)

        let fileURL = CampaignPlans.hlsPartURL(campaign: c, asset: asset, kbps: 800, part: 1)
        XCTAssertTrue(fileURL.hasSuffix("/trailer-v800/main.mp4"))
        let cacheKey = try CampaignPlans.cacheKey(fileURL, path: "")
        for part in 0...5 {
            let range = CampaignPlans.hlsPartRange(asset, kbps: 800, part: part)
            let o = try XCTUnwrap(plans.object(for: StoreKey(cacheKey: cacheKey, range: range)), "part \(part)")
            let file = plans.catalog.cacheObject[Int(o)]
            XCTAssertNotEqual(file, o, "a range of the file")
            XCTAssertEqual(plans.catalog.bytes[Int(file)], 1_001_000)
            XCTAssertEqual(plans.catalog.bytes[Int(o)], range.length)
            let headers = plans.responses[Int(o)].completion.headers
            XCTAssertEqual(headers.status, 206)
            XCTAssertEqual(headers.contentRange, ContentRange(first: range.offset, last: range.lastByte, completeLength: 1_001_000))
        }
        XCTAssertNil(plans.object(for: StoreKey(cacheKey: cacheKey)), "no entry names the whole file")

        XCTAssertEqual(plans.criticalCount[0], 5, "master, media playlist, the init section's and two segments' ranges")
        XCTAssertEqual(plans.paintRangeCount[0], 3)
        let base = Int(PreloadKit.NetworkClass.wifi.rawValue) * 5
        XCTAssertEqual(Array(plans.criticalRanges[0][base..<base + 5]), [nil, nil] + (0...2).map { CampaignPlans.hlsPartRange(asset, kbps: 800, part: $0) })
    }

    /// The same world with and without byte ranges: devices store the same parts with the same
    /// bytes (each range its own entry), the hls.* metrics agree, taps paint; the CDN answers the
    /// ranges of a file another range filled as hits, so there are fewer origin fetches (one per
    /// variant file and PoP, not one per part).
    func testARunPreStagesTheRangesLikeSegmentObjects() throws {
        let seed: UInt64 = 5
        var ranges = oneAssetWorld(devices: 1_500)
        ranges.campaigns[0].assets = [Self.trailer(byteRanges: true)]
        ranges.preloadPolicy.hlsSegmentsToPreStage = 2
        var objects = ranges
        objects.campaigns[0].assets = [Self.trailer(byteRanges: false)]
        let r = try simulate(ranges, seed: seed), o = try simulate(objects, seed: seed)
        XCTAssertGreaterThan(o.value("extension.assetsStored"), 0, "seed \(seed)")
        for name in ["extension.assetsStored", "hls.mediaPlaylistsStored", "hls.initSectionsStored", "hls.segmentsStored", "hls.segmentsPerVariantChosen"] {
            XCTAssertEqual(r.value(name), o.value(name), "\(name), seed \(seed)")
        }
        XCTAssertEqual(r.value("extension.fetchesCancelled"), 0, "every range answered as asked (seed \(seed))")
        XCTAssertGreaterThan(r.value("taps.instantShare"), 0, "seed \(seed)")
        XCTAssertLessThan(r.value("origin.requests"), o.value("origin.requests"), "one fill per file, not per part (seed \(seed))")
    }
}
