/// FCM's per-device limits a scenario's plan can exceed, as `prestage validate` warnings
/// (`providerLimitWarnings`), with `providers`: the messages one Android device in every FCM
/// per-token campaign's audience gets (each campaign's parts from its first send, the device first
/// in every send: the worst case) against `deviceMessagesPerMinuteMax` / `deviceMessagesPerHourMax`
/// (non-collapsible) and the collapsible burst and refill (`PushWorld+DeviceCaps.swift`).
extension PushWorldConfig {
    /// The instants (seconds) one device first in every send gets FCM per-token messages, split
    /// into non-collapsible and collapsible (with each one's collapse key index), each sorted.
    func deviceMessageInstants() -> (plain: [Double], collapsible: [(seconds: Double, key: UInt8)]) {
        var plain: [Double] = []
        var folded: [(seconds: Double, key: UInt8)] = []
        let keys = collapseKeyIndices
        for (i, c) in campaigns.enumerated() where c.sendAs != .topic && c.provider != .apns && c.audienceShare > 0 {
            let start = c.sendAtLocalSeconds ?? c.sendStartSeconds
            let instants = (0..<c.pushesPerDevice).map { start + Double($0) * (c.carouselIntervalSeconds ?? 0) }
            if c.collapsible { folded += instants.map { ($0, keys[i]) } } else { plain += instants }
        }
        return (plain.sorted(), folded.sorted { $0.seconds < $1.seconds })
    }

    /// The most of sorted `instants` in any window of `seconds` (half-open).
    static func mostInWindow(_ instants: [Double], seconds: Double) -> (count: Int, from: Double) {
        var best = (count: 0, from: 0.0)
        var lo = 0
        for hi in instants.indices {
            while instants[hi] - instants[lo] >= seconds { lo += 1 }
            if hi - lo + 1 > best.count { best = (hi - lo + 1, instants[lo]) }
        }
        return best
    }

    /// One line per per-device cap the plan exceeds; empty without `providers` or when none is.
    func deviceCapsLimitWarnings() -> [String] {
        guard let fcm = providers?.fcm else { return [] }
        let (plain, folded) = deviceMessageInstants()
        var warnings: [String] = []
        for (seconds, cap, unit) in [(60.0, fcm.deviceMessagesPerMinuteMax, "minute"), (3_600.0, fcm.deviceMessagesPerHourMax, "hour")] {
            let most = PushWorldConfig.mostInWindow(plain, seconds: seconds)
            guard most.count > cap else { continue }
            warnings.append("warning: an Android device in every campaign's audience is sent \(most.count) non-collapsible FCM messages "
                            + "in the \(unit) from t = \(PushWorldConfig.count(most.from)) s, above FCM's \(cap) per device per \(unit) "
                            + "(providers.fcm.deviceMessagesPer\(unit == "minute" ? "Minute" : "Hour")Max): FCM answers the excess 429 for that device "
                            + "and the sender retries it after its backoff (provider.fcm.deviceRateRejected). Space the campaigns or send fewer parts.")
        }
        // The collapsible burst: a GCRA over the instants, as the simulation holds them, a held
        // message replaced by the next one when that has its collapse key and is sent before it leaves.
        let refill = fcm.collapsibleRefillSeconds
        let burstSpan = Double(max(1, fcm.collapsibleBurstMessages) - 1) * refill
        var tat = -Double.infinity
        var held = 0
        var collapsed = 0
        var pending: (release: Double, key: UInt8)? = nil
        var lastRelease = 0.0
        var lastSend = 0.0
        for (t, key) in folded {
            lastSend = t
            if let p = pending, p.release > t, p.key == key {
                held += 1
                collapsed += 1
                continue
            }
            let now = max(tat, t)
            let release = max(t, now - burstSpan)
            tat = now + refill
            pending = release > t ? (release, key) : nil
            if release > t { held += 1 }
            lastRelease = release
        }
        if held > 0 {
            warnings.append("warning: an Android device in every campaign's audience is sent \(folded.count) collapsible FCM messages, "
                            + "more than FCM's burst of \(fcm.collapsibleBurstMessages) refilled 1 every \(PushWorldConfig.count(refill)) s "
                            + "allows: FCM holds \(held) of them (provider.fcm.collapsibleThrottled), \(collapsed) replaced while held by a newer one "
                            + "with the same collapse key and never delivered (provider.fcm.collapsibleCollapsedWhileHeld); the last sent at t = "
                            + "\(PushWorldConfig.count(lastSend)) s leaves FCM at t = \(PushWorldConfig.count(lastRelease)) s. "
                            + "Send collapsible updates at most every \(PushWorldConfig.count(refill)) s, or send them without a collapse key.")
        }
        return warnings
    }
}
