import Foundation

/// The topic fan-out's limits for `prestage validate` (with `providers`): FCM fans a project's
/// topic messages out at about `providers.fcm.fanOutPerSecond` (10 000/s, Firebase "Throttling and
/// quotas"), divided among the fan-outs in progress. From the configuration alone: each topic
/// campaign's pass (each wave with a calendar) is a fan-out of its expected pushes
/// (`devices × audienceShare × pushesPerDevice`, its wave's share), from its first send.
extension PushWorldConfig {
    /// One line per fan-out limit exceeded: topic sends fanning out at once (they share the rate),
    /// and a fan-out that cannot finish by the horizon even with the rate to itself.
    func fanOutLimitWarnings() -> [String] {
        guard let p = providers else { return [] }
        let rate = Double(max(1, p.fcm.fanOutPerSecond))
        let rateText = "\(PushWorldConfig.count(rate))/s"
        struct FanOut { let name: String; let start: Double; let end: Double; let messages: Double }
        let fanOuts: [FanOut] = campaigns.indices.flatMap { i -> [FanOut] in
            let c = campaigns[i]
            guard c.sendAs == .topic else { return [] }
            let messages = c.timing.pushesTargeted(devices: population.devices)
            if c.sendAtLocalSeconds != nil {
                return CalendarRules.plannedWaves(self, campaign: i).enumerated().map { k, wave in
                    FanOut(name: "\(c.name) (wave \(k + 1))", start: wave.startSeconds,
                           end: wave.startSeconds + messages * wave.share / rate, messages: messages * wave.share)
                }
            }
            return [FanOut(name: c.name, start: c.sendStartSeconds, end: c.sendStartSeconds + messages / rate, messages: messages)]
        }.filter { $0.messages > 0 }
        var warnings: [String] = []
        var reported = Set<String>()
        for f in fanOuts {
            let inFlight = fanOuts.filter { $0.start <= f.start && $0.end > f.start }
            let total = inFlight.reduce(0) { $0 + $1.messages }
            let names = inFlight.map(\.name).sorted()
            if names.count > 1, reported.insert(names.joined(separator: ",")).inserted {
                warnings.append("warning: topic campaigns \(names.joined(separator: ", ")) fan out at once at t = \(PushWorldConfig.count(f.start)) s: "
                                + "FCM divides the project's fan-out rate among them (each gets 1/\(names.count)); "
                                + "\(PushWorldConfig.fanOutText(total, rate: rate, rateText: rateText)) Fanning out one at a time finishes the first sooner.")
            }
            if f.start + total / rate > horizonSeconds {
                warnings.append("warning: campaign \(f.name) cannot finish its topic fan-out by the horizon (\(PushWorldConfig.count(horizonSeconds)) s): "
                                + "from t = \(PushWorldConfig.count(f.start)) s, \(PushWorldConfig.fanOutText(total, rate: rate, rateText: rateText))")
            }
        }
        return warnings
    }

    /// Audience devices a second campaign `c`'s send passes when it is sent as a topic with
    /// `providers` and fans out alone (the fan-out rate over its parts); nil for a per-token send.
    /// For estimates (progress, the report's send bands), not the simulation.
    package func fanOutDevicesPerSecond(_ c: CampaignConfig) -> Double? {
        guard let p = providers, c.sendAs == .topic else { return nil }
        return Double(max(1, p.fcm.fanOutPerSecond)) / Double(max(1, c.pushesPerDevice))
    }

    /// "5 000 000 topic messages at 10 000/s need ≥ 8.3 min."
    static func fanOutText(_ messages: Double, rate: Double, rateText: String) -> String {
        "\(count(messages)) topic messages at \(rateText) need ≥ \(oneDecimal(messages / rate / 60)) min."
    }
}
