import Foundation
import SimKernel
import XCTest
@testable import PushModel

/// PushModel's typed events and their raw numbers (which every fingerprint hashes).
final class PushEventTests: XCTestCase {
    /// Each case encodes to the documented kind, target and payload, and decodes back to itself.
    func testRawLayoutAndRoundTrip() throws {
        let w = PushWord(campaign: 3, part: 1, flags: PushWord.flagDeferred, sendTicks: 123_456_789)
        let cases: [(PushEvent, UInt16, UInt32, UInt64)] = [
            (.sendBatch(CampaignID(2)), 0x0200, 2, 0),
            (.pushArrive(DeviceID(7), w), 0x0201, 7, w.raw),
            (.silentRelease(DeviceID(8), w), 0x0202, 8, w.raw),
            (.deferredStart(DeviceID(9), w), 0x0203, 9, w.raw),
            (.sessionTimer(SessionSlot(4), generation: 11), 0x0204, 4, 11),
            (.osDeadline(SessionSlot(4), generation: 11, .expiryWarning), 0x0205, 4, 11 << 8),
            (.osDeadline(SessionSlot(4), generation: 11, .kill), 0x0205, 4, 11 << 8 | 1),
            (.fetchReply(SessionSlot(5), reply: 0xABCD_0000_0042), 0x0206, 5, 0xABCD_0000_0042),
            (.tap(DeviceID(6), campaign: CampaignID(3), sendTicks: 123_456_789), 0x0207, 6, 3 << 48 | 123_456_789),
            (.foregroundReply(TapID(1), reply: 99), 0x0208, 1, 99),
            (.paint(TapID(1), generation: 12), 0x0209, 1, 12),
            (.bucketFlush(BucketID(30)), 0x020A, 30, 0),
            (.creativeSwap(CampaignID(1), wave: 0), 0x020B, 1, 0),
            (.creativeSwap(CampaignID(1), wave: 2), 0x020B, 1, 2),
            (.rewarm(CampaignID(1), wave: 0), 0x020C, 1, 0),
            (.rewarm(CampaignID(1), wave: 3), 0x020C, 1, 3),
            (.networkChange(SessionSlot(2), generation: 13), 0x020D, 2, 13),
            (.deviceRetry(DeviceID(7), w), 0x020E, 7, w.raw),
            (.collapsibleRelease(DeviceID(8)), 0x020F, 8, 0),
        ]
        for (e, kind, target, payload) in cases {
            let r = e.encoded
            XCTAssertEqual(r.kind.rawValue, kind, "\(e)")
            XCTAssertEqual(r.target, target, "\(e)")
            XCTAssertEqual(r.payload, payload, "\(e)")
            XCTAssertTrue(PushEventKind.range.contains(kind))
            let back = try XCTUnwrap(PushEvent(Event(time: .zero, kind: r.kind, target: r.target, payload: r.payload)))
            XCTAssertEqual(back.encoded.kind, r.kind)
            XCTAssertEqual(back.encoded.target, r.target)
            XCTAssertEqual(back.encoded.payload, r.payload)
        }
        XCTAssertNil(PushEvent(Event(time: .zero, kind: EventKind(0x0210), target: 0)))
        XCTAssertNil(PushEvent(Event(time: .zero, kind: EventKind(0x0100), target: 0)))
    }

    /// A reply tag keeps 24 bits of the generation and the 8-bit index.
    func testReplyTag() {
        let tag = ReplyTag(generation: 0x0123_4567, index: 0x1FE)
        XCTAssertEqual(tag.raw, 0x2345_67FE)
        XCTAssertEqual(tag.index, 0xFE)
        XCTAssertTrue(tag.isFrom(generation: 0x0123_4567))
        XCTAssertTrue(tag.isFrom(generation: 0xFF23_4567))  // 24 bits compared
        XCTAssertFalse(tag.isFrom(generation: 0x0123_4568))
    }

    /// In a traced run every PushModel event decodes and re-encodes to its raw numbers, and the
    /// creative swap, re-warm and first send happen at the campaign timing's instants.
    func testTracedEventsFollowTheTiming() throws {
        var c = smallWorld(devices: 500)
        c.campaigns[0].warm = WarmConfig(mode: .allPops, aheadSeconds: 200)
        c.campaigns[0].creativeSwap = CreativeSwapConfig(secondsBeforeSend: 60, rewarmDelaySeconds: 7)
        struct Sink: EventTraceSink {
            var undecoded = 0
            var mismatched = 0
            var swaps: [Int64] = [], rewarms: [Int64] = [], sends: [Int64] = []
            mutating func record(_ event: Event) {
                guard PushEventKind.range.contains(event.kind.rawValue) else { return }
                guard let e = PushEvent(event) else { undecoded += 1; return }
                let r = e.encoded
                if r.kind != event.kind || r.target != event.target || r.payload != event.payload { mismatched += 1 }
                switch e {
                case .creativeSwap: swaps.append(event.time.ticks)
                case .rewarm: rewarms.append(event.time.ticks)
                case .sendBatch: sends.append(event.time.ticks)
                default: break
                }
            }
        }
        var sink = Sink()
        _ = try PushSimulation.run(c, masterSeed: 5, replication: 0, trace: &sink)
        let timing = c.campaigns[0].timing
        XCTAssertEqual(sink.undecoded, 0)
        XCTAssertEqual(sink.mismatched, 0)
        XCTAssertEqual(sink.swaps, [try XCTUnwrap(timing.swapTicks)])
        XCTAssertEqual(sink.rewarms, [try XCTUnwrap(timing.swapTicks) + timing.rewarmDelayTicks])
        XCTAssertEqual(sink.sends.first, timing.sendStartTicks)
    }
}
