import Foundation
import InfraModel
import PreloadKit
import SimKernel
import Stochastic
import XCTest
@testable import PushModel

/// The four payload forms in the simulator: each runs end to end; a manifest by reference costs
/// one more edge request and one more round trip per handled push; the providers' 4 KB limit is
/// checked on the encoded push; each form's constraints are refused with their path.
final class PayloadFormTests: XCTestCase {
    /// A world of `devices` whose every push is handled and every fetch succeeds: Android only
    /// (awake, high priority: the message handler runs at once), Wi-Fi only with no failures,
    /// no data-saving modes, ample free storage, the CDN warmed on every PoP.
    func cleanWorld(devices: Int, rttSeconds: Distribution? = nil) -> PushWorldConfig {
        var c = smallWorld(devices: devices)
        c.population.iosShare = 0
        c.population.doze.awake = 1
        c.population.doze.lightDoze = 0
        c.population.doze.deepDoze = 0
        c.population.networkMix = NetworkMixConfig(wifi: 1, fiveG: 0, lte: 0, fourG: 0, threeG: 0, twoG: 0, slow2G: 0)
        c.population.lowDataModeShare = 0
        c.population.saveDataShare = 0
        c.population.freeStorageBytes = .constant(value: 8e9)
        var wifi = c.infra.networks[.wifi]
        wifi.failureProbability = 0
        wifi.stallProbability = 0
        if let rttSeconds {
            wifi.rttSeconds = rttSeconds
            wifi.downlinkBitsPerSecond = .constant(value: 100e6)
        }
        c.infra.networks[.wifi] = wifi
        c.campaigns[0].warm = WarmConfig(mode: .allPops, aheadSeconds: 120)
        return c
    }

    /// Each form, run end to end: every push lands in one outcome, pre-stages complete and store
    /// assets, taps paint.
    func testEachFormRunsEndToEnd() throws {
        let seed: UInt64 = 5
        for form in PayloadFormConfig.allCases {
            var c = smallWorld(devices: 1_500)
            c.campaigns[0].payloadForm = form
            switch form {
            case .inline, .manifestReference: break
            case .silentURL:
                c.campaigns[0].iosPush = .silent
                c.campaigns[0].assets = [AssetConfig(name: "score", type: .json, priority: .critical, bytes: 1_800)]
            case .richAttachment:
                c.campaigns[0].assets = [AssetConfig(name: "photo", type: .image, priority: .critical, bytes: 300_000)]
            }
            let r = try simulate(c, seed: seed)
            XCTAssertEqual(r.outcomes.total, r.pushesTargeted, "\(form), seed \(seed)")
            XCTAssertGreaterThan(r.outcomes.completed, r.pushesTargeted / 4, "\(form), seed \(seed)")
            XCTAssertGreaterThan(r.value("extension.assetsStored"), 0, "\(form), seed \(seed)")
            XCTAssertGreaterThan(r.value("tapToPaint.count"), 0, "\(form), seed \(seed)")
        }
    }

    /// A manifest by reference makes exactly one more fetch per handled push.
    ///
    /// In the clean world every session passes PreloadKit's gates and every fetch succeeds, so an
    /// inline session fetches its k = 2 critical assets, and a referenced one the manifest and
    /// then the same k assets. Delivery does not depend on the payload form (the same devices
    /// draw the same delivery, common random numbers), so both runs start the same sessions S,
    /// and fetchesStarted(ref) − fetchesStarted(inline) = S (k+1) − S k = S exactly. The edge
    /// sees those S manifest requests too.
    func testManifestByReferenceAddsOneFetchPerHandledPush() throws {
        let seed: UInt64 = 17
        let c = cleanWorld(devices: 2_000)
        var ref = c
        ref.campaigns[0].payloadForm = .manifestReference
        let a = try simulate(c, seed: seed)
        let b = try simulate(ref, seed: seed)
        let sessions = b.value("sessions.started")
        XCTAssertGreaterThan(sessions, 1_000, "seed \(seed)")
        XCTAssertEqual(a.value("sessions.started"), sessions, "seed \(seed)")
        XCTAssertEqual(a.value("extension.fetchesStarted"), 2 * sessions, "seed \(seed)")
        XCTAssertEqual(b.value("extension.fetchesStarted") - a.value("extension.fetchesStarted"), sessions, "seed \(seed)")
        XCTAssertEqual(b.outcomes.completed, a.outcomes.completed, "seed \(seed)")
    }

    /// A manifest by reference delays the handler by the manifest's own round trip.
    ///
    /// One device, Wi-Fi with a constant 200 ms RTT and 100 Mbit/s, warmed CDN: the inline
    /// handler fetches its assets at once; the referenced one first fetches the manifest, then
    /// the same assets over the same constant network. The manifest fetch is an edge hit on a
    /// new connection: the setup round trips (DNS, TCP, TLS: `infra.connectionSetup`, 3 by
    /// default) plus the request's own, plus the edge's few milliseconds of processing and ~1 KB
    /// of transfer (0.1 ms at 100 Mbit/s). So the handler (push arrival to the last fetch reply)
    /// is longer by at least (setup + 1) RTT and by less than (setup + 2) RTT.
    func testManifestByReferenceAddsOneRoundTripToTheHandler() throws {
        let seed: UInt64 = 3
        let rtt = 0.2
        let c = cleanWorld(devices: 1, rttSeconds: .constant(value: rtt))
        var ref = c
        ref.campaigns[0].payloadForm = .manifestReference
        let inline = try handlerSeconds(c, seed: seed)
        let referenced = try handlerSeconds(ref, seed: seed)
        let roundTrips = Double(c.infra.connectionSetup.dnsRoundTrips + c.infra.connectionSetup.tcpRoundTrips
                                + c.infra.connectionSetup.tlsRoundTrips + 1)
        XCTAssertGreaterThanOrEqual(referenced - inline, roundTrips * rtt, "inline \(inline) s, by reference \(referenced) s (seed \(seed))")
        XCTAssertLessThan(referenced - inline, (roundTrips + 1) * rtt, "inline \(inline) s, by reference \(referenced) s (seed \(seed))")
    }

    /// Seconds from the push's arrival to the last reply of its session's fetches (one device).
    func handlerSeconds(_ c: PushWorldConfig, seed: UInt64) throws -> Double {
        struct Times: EventTraceSink {
            var arrive: Int64 = -1
            var lastReply: Int64 = -1
            mutating func record(_ event: Event) {
                switch PushEvent(event) {
                case .pushArrive? where arrive < 0: arrive = event.time.ticks
                case .fetchReply?: lastReply = event.time.ticks
                default: break
                }
            }
        }
        var times = Times()
        let r = try PushSimulation.run(c, masterSeed: seed, replication: 0, trace: &times)
        XCTAssertEqual(r.outcomes.completed, 1, "seed \(seed)")
        XCTAssertGreaterThan(times.arrive, 0)
        XCTAssertGreaterThan(times.lastReply, times.arrive)
        return Double(times.lastReply - times.arrive) / 1e6
    }

    /// A tap on a device that never fetched the referenced manifest pays the manifest's round
    /// trip before the assets. Every device is in Low Data Mode, so PreloadKit pre-stages nothing
    /// (not even the manifest) and every tap fetches in the foreground: inline, the assets at
    /// once; by reference, the manifest first (an edge hit: at least one 200 ms RTT), then the
    /// same assets. The same users tap at the same instants (common random numbers), so every
    /// tap's time to paint grows by at least one RTT, the median too.
    func testTapWithoutTheManifestPaysItsRoundTrip() throws {
        let seed: UInt64 = 9
        let rtt = 0.2
        var c = cleanWorld(devices: 400, rttSeconds: .constant(value: rtt))
        c.population.lowDataModeShare = 1
        var ref = c
        ref.campaigns[0].payloadForm = .manifestReference
        let a = try simulate(c, seed: seed)
        let b = try simulate(ref, seed: seed)
        XCTAssertEqual(a.value("extension.fetchesStarted"), 0, "seed \(seed)")
        XCTAssertEqual(b.value("extension.fetchesStarted"), 0, "seed \(seed)")
        XCTAssertGreaterThan(a.value("tapToPaint.count"), 50, "seed \(seed)")
        XCTAssertEqual(a.value("tapToPaint.count"), b.value("tapToPaint.count"), "seed \(seed)")
        XCTAssertGreaterThanOrEqual(b.value("tapToPaint.p50Seconds") - a.value("tapToPaint.p50Seconds"), rtt * 0.95,
                                    "seed \(seed) (the histogram's bins are a few per cent wide)")
    }

    /// The 4 KB check: sixteen assets with 60-character names and a 4G rendition each make an
    /// inline push of more than 4 096 bytes (each asset's entry with its variant is about 290
    /// bytes, 16 × 290 ≈ 4.6 KB): refused with the campaign's path, the
    /// byte count, the limit and the fix. The same campaign by reference sends a push of a few
    /// hundred bytes and a manifest within PreloadKit's 16 KB manifest limit.
    func testPayloadOverFourKilobytesIsRefusedAndFitsByReference() throws {
        var big = CampaignConfig()
        big.name = "catalogue"
        let name = String(repeating: "x", count: 60)
        big.assets = (0..<16).map {
            AssetConfig(name: "\(name)\($0)", priority: $0 < 2 ? .critical : .normal, variants: [AssetVariantConfig(network: "4g", bytes: 20_000)])
        }
        var inlineWorld = PushWorldConfig()
        inlineWorld.campaigns = [CampaignConfig(), big]
        XCTAssertThrowsError(try inlineWorld.preflight()) { error in
            guard let e = error as? PushModelError else { return XCTFail("\(error)") }
            XCTAssertEqual(e.path, "campaigns[1]")
            XCTAssertTrue(e.reason.contains("over the APNs/FCM limit of 4096 bytes"), e.reason)
            XCTAssertTrue(e.reason.contains("manifestReference"), e.reason)
            let bytes = CampaignPayload.signedBytes(CampaignPayload.pushDocument(big, form: .inline, assets: Array(big.assets.indices), silent: false,
                                                                                expirySeconds: CampaignPlans.expirySeconds(big, part: 0, sendSeconds: big.sendStartSeconds),
                                                                                url: CampaignPlans.assetURL(big)))
            XCTAssertGreaterThan(bytes, 4_096)
            XCTAssertTrue(e.reason.contains("is \(bytes) bytes"), e.reason)
        }
        var ref = inlineWorld
        ref.campaigns[1].payloadForm = .manifestReference
        XCTAssertNoThrow(try ref.preflight())
        let plans = try CampaignPlans(campaigns: ref.campaigns)
        XCTAssertLessThan(plans.pushBytes[1], 1_024)
        let manifest = plans.manifestObject[1]
        XCTAssertGreaterThan(plans.catalog.bytes[Int(manifest)], 4_096)
        XCTAssertTrue(plans.warmObjects[1].contains(manifest), "the manifest is warmed with the assets")
        XCTAssertEqual(plans.manifestObject[0], .max)
        // The encoded size is exactly what is sent: the signed document's bytes.
        let signed = try CampaignPayload.signed(CampaignPayload.pushDocument(big, form: .manifestReference, assets: Array(big.assets.indices),
                                                                             silent: false, expirySeconds: CampaignPlans.expirySeconds(big, part: 0, sendSeconds: big.sendStartSeconds),
                                                                             manifestURL: CampaignPlans.manifestURL(big), url: CampaignPlans.assetURL(big)),
                                                options: plans.payloadOptions)
        XCTAssertEqual(signed.count, plans.pushBytes[1])
    }

    /// Each form's constraints are refused with the field's path.
    func testFormConstraintsNameTheirField() {
        func refusal(_ edit: (inout CampaignConfig) -> Void) -> String {
            var c = CampaignConfig()
            edit(&c)
            do {
                _ = try CampaignPlans(campaigns: [c])
                return "accepted"
            } catch {
                return (error as? PushModelError)?.path ?? "\(error)"
            }
        }
        XCTAssertEqual(refusal { $0.payloadForm = .silentURL; $0.iosPush = .silent }, "campaigns[0].assets", "two assets, no carousel")
        XCTAssertEqual(refusal { $0.payloadForm = .silentURL; $0.iosPush = .silent; $0.carouselIntervalSeconds = 60 }, "accepted",
                       "one silent push per asset")
        XCTAssertEqual(refusal { $0.payloadForm = .silentURL; $0.assets.removeLast() }, "campaigns[0].iosPush")
        XCTAssertEqual(refusal { $0.payloadForm = .richAttachment }, "campaigns[0].assets")
        XCTAssertEqual(refusal { $0.payloadForm = .richAttachment; $0.assets.removeFirst() }, "campaigns[0].assets[0].type", "JSON is not attachable")
        XCTAssertEqual(refusal { $0.payloadForm = .richAttachment; $0.assets = [AssetConfig(type: .audio, bytes: 6_000_000)] },
                       "campaigns[0].assets[0].bytes", "over the 5 MB audio attachment limit")
        XCTAssertEqual(refusal { $0.payloadForm = .richAttachment; $0.assets = [AssetConfig(type: .audio, bytes: 5_000_000)] }, "accepted")
        XCTAssertEqual(refusal { $0.payloadForm = .richAttachment; $0.iosPush = .silent; $0.assets.removeLast() }, "campaigns[0].iosPush")
        XCTAssertEqual(refusal { $0.payloadForm = .richAttachment; $0.assets = [AssetConfig(variants: [AssetVariantConfig(network: "3g", bytes: 9_000)])] },
                       "campaigns[0].assets[0].variants")
        XCTAssertEqual(refusal { $0.payloadForm = .manifestReference; $0.carouselIntervalSeconds = 60 }, "campaigns[0].carouselIntervalSeconds")
    }
}
