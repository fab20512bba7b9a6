import InfraModel
import SimKernel

/// PushModel's kernel events, typed: what each event kind means and what its target and payload
/// carry. This file is the only place that packs an event into the kernel's raw numbers
/// (`encoded`, which SimKernel's `schedule` helpers and `BucketQueue` read) or unpacks one (`init?(_:)`), so a payload layout is
/// written once. The raw numbers are part of every run's event fingerprint: changing a layout
/// changes the fingerprints, never the results.
enum PushEvent: KernelEncodable {
    /// One second of a campaign's send.
    case sendBatch(CampaignID)
    /// The provider hands push `PushWord` to the device's OS.
    case pushArrive(DeviceID, PushWord)
    /// A held iOS silent push is released.
    case silentRelease(DeviceID, PushWord)
    /// A deferred Android push (or its job) may run now; the word carries the handler flags.
    case deferredStart(DeviceID, PushWord)
    /// A session's PreloadKit timer, armed by the slot's session of `generation`.
    case sessionTimer(SessionSlot, generation: UInt32)
    /// An OS deadline of the slot's session of `generation`: the expiry warning or the kill.
    case osDeadline(SessionSlot, generation: UInt32, OSDeadline)
    /// InfraWorld's reply to a session fetch; `reply` is InfraModel's reply word
    /// (`InfraWorld.decodeReply`), whose tag is a `ReplyTag`.
    case fetchReply(SessionSlot, reply: UInt64)
    /// The user taps the notification of campaign `campaign`'s push sent at `sendTicks`.
    case tap(DeviceID, campaign: CampaignID, sendTicks: Int64)
    /// InfraWorld's reply to a tap's foreground fetch; `reply` as in `fetchReply`.
    case foregroundReply(TapID, reply: UInt64)
    /// First paint of the tap slot's tap of `generation`.
    case paint(TapID, generation: UInt32)
    /// A far-future bucket of `BucketQueue` is due.
    case bucketFlush(BucketID)
    /// Creative swap before the campaign's calendar wave `wave` (0 without a calendar): its
    /// objects are purged by surrogate key.
    case creativeSwap(CampaignID, wave: UInt32)
    /// Re-warm of the campaign's objects after wave `wave`'s creative swap; through a CDN API
    /// profile, also the warm call before wave `wave` (made at its instant).
    case rewarm(CampaignID, wave: UInt32)
    /// The device of the slot's session of `generation` changes network.
    case networkChange(SessionSlot, generation: UInt32)
    /// The campaign service retries a device's messages FCM refused for the device's rate; the
    /// word's part field carries the attempts so far (`PushWorld+DeviceCaps.swift`).
    case deviceRetry(DeviceID, PushWord)
    /// A device's held (throttled) collapsible message may leave FCM (`PushWorld+DeviceCaps.swift`).
    case collapsibleRelease(DeviceID)

    /// The kind numbers (within `PushEventKind.range`).
    enum Kind {
        static let sendBatch = EventKind(0x0200)
        static let pushArrive = EventKind(0x0201)
        static let silentRelease = EventKind(0x0202)
        static let deferredStart = EventKind(0x0203)
        static let sessionTimer = EventKind(0x0204)
        static let osDeadline = EventKind(0x0205)
        static let fetchReply = EventKind(0x0206)
        static let tap = EventKind(0x0207)
        static let foregroundReply = EventKind(0x0208)
        static let paint = EventKind(0x0209)
        static let bucketFlush = EventKind(0x020A)
        static let creativeSwap = EventKind(0x020B)
        static let rewarm = EventKind(0x020C)
        static let networkChange = EventKind(0x020D)
        static let deviceRetry = EventKind(0x020E)
        static let collapsibleRelease = EventKind(0x020F)
    }

    /// The event a kernel event of a PushModel kind means; nil for any other kind.
    @inline(__always)
    init?(_ event: Event) {
        let p = event.payload
        let t = event.target
        switch event.kind.rawValue {
        case Kind.sendBatch.rawValue: self = .sendBatch(CampaignID(rawValue: t))
        case Kind.pushArrive.rawValue: self = .pushArrive(DeviceID(rawValue: t), PushWord(p))
        case Kind.silentRelease.rawValue: self = .silentRelease(DeviceID(rawValue: t), PushWord(p))
        case Kind.deferredStart.rawValue: self = .deferredStart(DeviceID(rawValue: t), PushWord(p))
        case Kind.sessionTimer.rawValue: self = .sessionTimer(SessionSlot(rawValue: t), generation: UInt32(truncatingIfNeeded: p))
        case Kind.osDeadline.rawValue:
            self = .osDeadline(SessionSlot(rawValue: t), generation: UInt32(truncatingIfNeeded: p >> 8), p & 0xFF == 0 ? .expiryWarning : .kill)
        case Kind.fetchReply.rawValue: self = .fetchReply(SessionSlot(rawValue: t), reply: p)
        case Kind.tap.rawValue:
            self = .tap(DeviceID(rawValue: t), campaign: CampaignID(rawValue: UInt32(truncatingIfNeeded: p >> 48)),
                        sendTicks: Int64(p & PushWord.sendMask))
        case Kind.foregroundReply.rawValue: self = .foregroundReply(TapID(rawValue: t), reply: p)
        case Kind.paint.rawValue: self = .paint(TapID(rawValue: t), generation: UInt32(truncatingIfNeeded: p))
        case Kind.bucketFlush.rawValue: self = .bucketFlush(BucketID(rawValue: t))
        case Kind.creativeSwap.rawValue: self = .creativeSwap(CampaignID(rawValue: t), wave: UInt32(truncatingIfNeeded: p))
        case Kind.rewarm.rawValue: self = .rewarm(CampaignID(rawValue: t), wave: UInt32(truncatingIfNeeded: p))
        case Kind.networkChange.rawValue: self = .networkChange(SessionSlot(rawValue: t), generation: UInt32(truncatingIfNeeded: p))
        case Kind.deviceRetry.rawValue: self = .deviceRetry(DeviceID(rawValue: t), PushWord(p))
        case Kind.collapsibleRelease.rawValue: self = .collapsibleRelease(DeviceID(rawValue: t))
        default: return nil
        }
    }

    /// The kernel's numbers for this event: kind, target and payload.
    @inline(__always)
    var encoded: (kind: EventKind, target: UInt32, payload: UInt64) {
        switch self {
        case .sendBatch(let c): return (Kind.sendBatch, c.rawValue, 0)
        case .pushArrive(let d, let w): return (Kind.pushArrive, d.rawValue, w.raw)
        case .silentRelease(let d, let w): return (Kind.silentRelease, d.rawValue, w.raw)
        case .deferredStart(let d, let w): return (Kind.deferredStart, d.rawValue, w.raw)
        case .sessionTimer(let s, let g): return (Kind.sessionTimer, s.rawValue, UInt64(g))
        case .osDeadline(let s, let g, let which):
            let bit: UInt64
            switch which {
            case .expiryWarning: bit = 0
            case .kill: bit = 1
            }
            return (Kind.osDeadline, s.rawValue, UInt64(g) << 8 | bit)
        case .fetchReply(let s, let reply): return (Kind.fetchReply, s.rawValue, reply)
        case .tap(let d, let c, let sendTicks):
            return (Kind.tap, d.rawValue, UInt64(c.rawValue) << 48 | (UInt64(sendTicks) & PushWord.sendMask))
        case .foregroundReply(let t, let reply): return (Kind.foregroundReply, t.rawValue, reply)
        case .paint(let t, let g): return (Kind.paint, t.rawValue, UInt64(g))
        case .bucketFlush(let b): return (Kind.bucketFlush, b.rawValue, 0)
        case .creativeSwap(let c, let wave): return (Kind.creativeSwap, c.rawValue, UInt64(wave))
        case .rewarm(let c, let wave): return (Kind.rewarm, c.rawValue, UInt64(wave))
        case .networkChange(let s, let g): return (Kind.networkChange, s.rawValue, UInt64(g))
        case .deviceRetry(let d, let w): return (Kind.deviceRetry, d.rawValue, w.raw)
        case .collapsibleRelease(let d): return (Kind.collapsibleRelease, d.rawValue, 0)
        }
    }

    /// Where InfraWorld sends its reply to a session slot's fetch (`InfraFetchRequest.replyKind`
    /// and `replyTarget`); the reply arrives as `fetchReply`.
    @inline(__always)
    static func fetchReplyAddress(_ s: SessionSlot) -> (kind: EventKind, target: UInt32) { (Kind.fetchReply, s.rawValue) }

    /// Where InfraWorld sends its reply to a tap's foreground fetch; it arrives as `foregroundReply`.
    @inline(__always)
    static func foregroundReplyAddress(_ t: TapID) -> (kind: EventKind, target: UInt32) { (Kind.foregroundReply, t.rawValue) }
}

/// The tag a fetch's InfraWorld reply carries back (`InfraFetchRequest.replyTag`): the low 24 bits
/// of the requesting slot's generation (a session slot's or a tap slot's) and an 8-bit index (a
/// session's fetch id; a tap's foreground fetch index).
struct ReplyTag {
    var raw: UInt32

    /// The tag of fetch `index` of the slot at `generation`.
    @inline(__always)
    init(generation: UInt32, index: UInt32) { raw = (generation & 0xFF_FFFF) << 8 | (index & 0xFF) }

    /// The tag as InfraWorld returned it.
    @inline(__always)
    init(raw: UInt32) { self.raw = raw }

    /// The fetch index.
    @inline(__always)
    var index: UInt32 { raw & 0xFF }

    /// Whether the tag was issued by the slot's current `generation` (24 bits compared).
    @inline(__always)
    func isFrom(generation: UInt32) -> Bool { generation & 0xFF_FFFF == raw >> 8 }
}

extension BucketQueue {
    /// Schedules PushModel event `e` at `at` ticks, in a far-future bucket when it is far enough ahead.
    @inline(__always)
    mutating func schedule(at: Int64, _ e: PushEvent, kernel: inout Kernel) throws {
        let r = e.encoded
        try schedule(at: at, kind: r.kind, target: r.target, payload: r.payload, kernel: &kernel)
    }
}
