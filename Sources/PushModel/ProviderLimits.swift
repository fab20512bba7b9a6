import Foundation

/// The published push-provider limits a scenario's plan would exceed, as warnings for
/// `prestage validate` (the plan is valid; the limits say what will bind). Computed from the
/// configuration alone: expected pushes (`devices × audienceShare × pushesPerDevice`, the FCM
/// share by each campaign's route), each campaign's effective sender rate and send window.
extension PushWorldConfig {
    /// FCM's published limits (Firebase, "Throttling and quotas"): the default project quota, the
    /// most an increase may add, and how far ahead it must be requested.
    package static let fcmDefaultQuotaPerMinute: Double = 600_000
    package static let fcmQuotaIncreaseShareMax: Double = 0.25
    package static let fcmQuotaIncreaseNoticeDays = 15

    /// The expected FCM messages of campaign `c` (its Android share when routed by platform).
    func fcmMessages(_ c: CampaignConfig) -> Double {
        // A topic send is one request of the quota; its fan-out has its own limit (`fanOutLimitWarnings`).
        if providers != nil && c.sendAs == .topic { return 0 }
        let share: Double
        switch c.provider {
        case .platform: share = 1 - population.iosShare
        case .fcm: share = 1
        case .apns: share = 0
        }
        return c.timing.pushesTargeted(devices: population.devices) * share
    }

    /// One line per limit exceeded, in campaign order (the HTTP v1 quota's, then the topic fan-out's);
    /// empty when none is.
    package func providerLimitWarnings() -> [String] {
        let quota = providers.map { Double($0.fcm.projectQuotaPerMinute) } ?? PushWorldConfig.fcmDefaultQuotaPerMinute
        let quotaText = providers == nil || quota == PushWorldConfig.fcmDefaultQuotaPerMinute
            ? "the default FCM quota (\(PushWorldConfig.count(quota))/min)" : "the FCM project quota of \(PushWorldConfig.count(quota))/min"
        let increased = quota * (1 + PushWorldConfig.fcmQuotaIncreaseShareMax)
        var warnings: [String] = []
        // Campaigns in flight at each campaign's first send: their FCM sender rates add up.
        struct Window { let name: String; let start: Double; let end: Double; let ratePerMinute: Double; let messages: Double }
        let windows: [Window] = campaigns.indices.flatMap { i -> [Window] in
            let c = campaigns[i]
            let t = c.timing
            let messages = fcmMessages(c)
            let fcmShare = t.pushesTargeted(devices: population.devices) > 0 ? messages / t.pushesTargeted(devices: population.devices) : 0
            if c.sendAtLocalSeconds != nil {
                // One window per wave (a campaign sent at a local time), each its share of the messages.
                return CalendarRules.plannedWaves(self, campaign: i).enumerated().map { k, wave in
                    Window(name: "\(c.name) (wave \(k + 1))", start: wave.startSeconds,
                           end: wave.startSeconds + messages * wave.share / max(t.sendRatePerMinute * fcmShare / 60, 1e-9),
                           ratePerMinute: t.sendRatePerMinute * fcmShare, messages: messages * wave.share)
                }
            }
            return [Window(name: c.name, start: t.sendStartSeconds,
                           end: t.sendEndSeconds(devices: population.devices, partsAfterFirst: max(0, t.pushesPerDevice - 1)),
                           ratePerMinute: t.sendRatePerMinute * fcmShare, messages: messages)]
        }
        var reported = Set<String>()
        for w in windows where w.messages > 0 {
            let inFlight = windows.filter { $0.messages > 0 && $0.start <= w.start && $0.end > w.start }
            let rate = inFlight.reduce(0) { $0 + $1.ratePerMinute }
            let names = inFlight.map(\.name).sorted()
            guard rate > quota, reported.insert(names.joined(separator: ",")).inserted else { continue }
            let total = inFlight.reduce(0) { $0 + $1.messages }
            let who = names.count == 1 ? "campaign \(names[0]) sends" : "campaigns \(names.joined(separator: ", ")) send"
            warnings.append("warning: \(who) \(PushWorldConfig.count(rate)) FCM messages/min at t = "
                            + "\(PushWorldConfig.count(w.start)) s, above \(quotaText): FCM answers 429 RESOURCE_EXHAUSTED until its bucket refills. "
                            + PushWorldConfig.minutesText(total, quota: quota, quotaText: quotaText, increased: increased))
        }
        // A campaign whose FCM send cannot finish by the horizon even at the full quota.
        for w in windows where w.messages > 0 {
            let needSeconds = w.messages / quota * 60
            if w.start + needSeconds > horizonSeconds {
                warnings.append("warning: campaign \(w.name) cannot send its \(PushWorldConfig.count(w.messages)) FCM messages by the horizon "
                                + "(\(PushWorldConfig.count(horizonSeconds)) s): at \(quotaText) they need ≥ "
                                + "\(PushWorldConfig.oneDecimal(needSeconds / 60)) min from t = \(PushWorldConfig.count(w.start)) s.")
            }
        }
        warnings += offlineLimitWarnings()
        warnings += deviceCapsLimitWarnings()
        return warnings + fanOutLimitWarnings()
    }

    /// "20 000 000 sends at the default FCM quota (600 000/min) need ≥ 33.3 min; an increase is at
    /// most +25 % (750 000/min: ≥ 26.7 min) and must be requested ≥ 15 days ahead."
    static func minutesText(_ messages: Double, quota: Double, quotaText: String, increased: Double) -> String {
        "\(count(messages)) sends at \(quotaText) need ≥ \(oneDecimal(messages / quota)) min; an increase is at most "
            + "+\(Int(fcmQuotaIncreaseShareMax * 100)) % (\(count(increased))/min: ≥ \(oneDecimal(messages / increased)) min) "
            + "and must be requested ≥ \(fcmQuotaIncreaseNoticeDays) days ahead."
    }

    /// A count with thin-space-free thousands groups ("20 000 000"); beyond Int64, "2e+300".
    static func count(_ x: Double) -> String {
        guard x.isFinite, Swift.abs(x) < 9e18 else { return String(format: "%.3g", x) }
        let digits = String(Int64(x.rounded()))
        var out = ""
        for (i, ch) in digits.reversed().enumerated() {
            if i > 0 && i % 3 == 0 && ch != "-" { out.append(" ") }
            out.append(ch)
        }
        return String(out.reversed())
    }

    static func oneDecimal(_ x: Double) -> String { String(format: "%.1f", x) }
}
