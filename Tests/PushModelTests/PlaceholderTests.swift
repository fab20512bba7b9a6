import Foundation
import InfraModel
import XCTest
@testable import PushModel

/// The CDN's 302 to a small placeholder for Save-Data (or slow) requests, as the two kinds of
/// client meet it: a pre-stage fetch follows no redirect (PreloadKit's rule), so its 302 stores
/// nothing; the app's foreground fetch after a tap follows it and paints the placeholder, which
/// PreloadKit does not keep under the asset's key. No placeholder ever counts as pre-staged.
final class PlaceholderTests: XCTestCase {
    /// One critical image; with `slow`, every network is a 60 kbit/s link (effective connection
    /// type 2g: at most 70 kbit/s), otherwise 50 Mbit/s; the placeholder on at 2g and below (no
    /// device sends Save-Data, which PreloadKit's default policy answers by not pre-staging).
    func world(slow: Bool) -> PushWorldConfig {
        var c = oneAssetWorld(devices: 2_000)
        if slow {
            for cls in InfraNetworkClass.allCases {
                c.infra.networks[cls] = NetworkProfile(rttSeconds: .constant(value: 0.3), downlinkBitsPerSecond: .constant(value: 60e3),
                                                       failureProbability: 0, stallProbability: 0, sharedCapacityBitsPerSecond: 0)
            }
        }
        c.infra.placeholder = PlaceholderPolicy(enabled: true, placeholderBytes: 30_000, onSaveData: true, maxEffectiveConnectionType: .twoG)
        c.users.foregroundFetchesKept = true
        return c
    }

    func testARedirectedPreStageStoresNothingAndTheTapPaintsThePlaceholder() throws {
        let seed: UInt64 = 17
        let r = try simulate(world(slow: true), seed: seed)
        let redirects = r.value("extension.placeholderRedirects")
        XCTAssertGreaterThan(redirects, 0, "seed \(seed)")
        XCTAssertEqual(r.value("extension.assetsStored"), 0, "a 302 is never stored (seed \(seed))")
        XCTAssertEqual(r.value("bytes.background"), 0, "the 302 is headers only (seed \(seed))")
        XCTAssertGreaterThan(r.value("taps.count"), 0, "seed \(seed)")
        XCTAssertEqual(r.value("taps.instantShare"), 0, "no tap paints a placeholder as if pre-staged (seed \(seed))")
        XCTAssertEqual(r.value("taps.placeholderShare"), 1, "every painted tap showed the placeholder (seed \(seed))")
        XCTAssertGreaterThan(r.value("taps.placeholderPainted"), 0, "seed \(seed)")
        XCTAssertEqual(r.value("taps.foregroundKept"), 0, "the placeholder is not kept under the asset's key (seed \(seed))")
        XCTAssertGreaterThan(r.value("taps.foregroundNotKept"), 0, "seed \(seed)")
        // Every foreground fetch is answered with the placeholder (a tap whose paint fell past the
        // horizon fetched it too, unpainted).
        let foreground = r.value("bytes.foreground")
        XCTAssertGreaterThanOrEqual(foreground, 30_000 * r.value("taps.placeholderPainted"), "seed \(seed)")
        XCTAssertEqual(foreground.truncatingRemainder(dividingBy: 30_000), 0, "only placeholders in the foreground (seed \(seed))")

        // On fast links nothing is redirected: the asset is pre-staged and taps paint it.
        let plain = try simulate(world(slow: false), seed: seed)
        XCTAssertEqual(plain.value("extension.placeholderRedirects"), 0, "seed \(seed)")
        XCTAssertEqual(plain.value("taps.placeholderShare"), 0, "seed \(seed)")
        XCTAssertGreaterThan(plain.value("taps.instantShare"), 0.5, "seed \(seed)")
    }

    /// Off (the default) the placeholder's metrics are not in the result.
    func testOffLeavesNoPlaceholderMetrics() throws {
        var c = world(slow: true)
        c.infra.placeholder.enabled = false
        let r = try simulate(c, seed: 3)
        XCTAssertNil(r.metric(.extensionPlaceholderRedirects))
        XCTAssertNil(r.metric(.tapsPlaceholderShare))
    }

    /// The placeholder is an image: only image assets may be redirected to it (a JSON asset
    /// answered with an image would "paint" with the wrong type). The default campaign has a
    /// critical image and a critical JSON.
    func testOnlyImageAssetsMayBeRedirected() throws {
        let plans = try CampaignPlans(campaigns: [CampaignConfig()])
        let assets = CampaignConfig().assets
        XCTAssertEqual(Set(assets.map(\.type)), [.image, .json])
        for (a, asset) in assets.enumerated() {
            let object = Int(plans.criticalObjects[0][a])
            XCTAssertEqual(plans.catalog.placeholderEligible[object], asset.type == .image, asset.name)
        }
    }
}
