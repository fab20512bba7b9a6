import Foundation
import SimKernel

// The campaign calendar: regions' UTC offsets, a send at a local time per region (one wave per
// distinct offset), targeting by region and segment, and audience rules between campaigns. Every
// check a scenario's calendar fields must pass is here, once, for the scenario format and the
// world alike.

/// The calendar's rules and arithmetic.
package enum CalendarRules {
    /// The UTC offsets a region may have, seconds: UTC−12:00 to UTC+14:00 (the range of the
    /// world's civil time zones, IANA tz database).
    package static let utcOffsetSecondsRange: ClosedRange<Int> = -43_200...50_400
    /// A campaign's local send time, seconds after local midnight.
    package static let sendAtLocalSecondsRange: ClosedRange<Double> = 0...86_399
    static let daySeconds = 86_400.0
    /// Shares are compared with this slack (a sum of decimal shares such as 0.7 + 0.3).
    static let shareSlack = 1e-9

    /// How a region is named in `campaigns[].regions`: its `infra.topology.regionNames` entry, or
    /// "region N" (N its index) when the scenario names none.
    package static func regionName(_ index: Int, names: [String]) -> String {
        index < names.count ? names[index] : "region \(index)"
    }

    /// The first virtual instant ≥ 0 at which a region's local clock reads `sendAtLocalSeconds`,
    /// seconds: local clock = `clockAtStartSeconds` (the UTC clock at t = 0) + the offset + t.
    /// With `onLocalDay` (`sendOnLocalDay`): that many days after the local midnight that starts
    /// the region's local day at t = 0, plus `sendAtLocalSeconds`; may be negative (before t = 0:
    /// refused by `issues`).
    package static func waveStartSeconds(sendAtLocalSeconds: Double, utcOffsetSeconds: Int, clockAtStartSeconds: Double,
                                         onLocalDay: Int?) -> Double {
        guard let day = onLocalDay else {
            return waveStartSeconds(sendAtLocalSeconds: sendAtLocalSeconds, utcOffsetSeconds: utcOffsetSeconds, clockAtStartSeconds: clockAtStartSeconds)
        }
        var localAtStart = (clockAtStartSeconds + Double(utcOffsetSeconds)).truncatingRemainder(dividingBy: daySeconds)
        if localAtStart < 0 { localAtStart += daySeconds }
        return Double(day) * daySeconds + sendAtLocalSeconds - localAtStart
    }

    package static func waveStartSeconds(sendAtLocalSeconds: Double, utcOffsetSeconds: Int, clockAtStartSeconds: Double) -> Double {
        var t = (sendAtLocalSeconds - Double(utcOffsetSeconds) - clockAtStartSeconds).truncatingRemainder(dividingBy: daySeconds)
        if t < 0 { t += daySeconds }
        return t >= daySeconds ? 0 : t
    }

    /// Campaign `c`'s wave starts, seconds, ascending and distinct, and each region's wave (-1:
    /// not targeted). Without `sendAtLocalSeconds`: one wave at `sendStartSeconds`.
    package static func waves(_ w: PushWorldConfig, campaign c: Int) -> (startSeconds: [Double], waveOfRegion: [Int]) {
        let campaign = w.campaigns[c]
        let regions = w.infra.topology.effectiveRegions
        let names = w.infra.topology.regionNames
        let targeted = (0..<regions.count).map { r in
            campaign.regions.isEmpty || campaign.regions.contains(regionName(r, names: names))
        }
        guard let local = campaign.sendAtLocalSeconds else {
            return ([campaign.sendStartSeconds], targeted.map { $0 ? 0 : -1 })
        }
        let clock = w.population.dozeNight.clockAtStartSeconds
        let startOfRegion = regions.map {
            waveStartSeconds(sendAtLocalSeconds: local, utcOffsetSeconds: $0.utcOffsetSeconds, clockAtStartSeconds: clock,
                             onLocalDay: campaign.sendOnLocalDay)
        }
        let starts = Array(Set(regions.indices.filter { targeted[$0] }.map { startOfRegion[$0] })).sorted()
        let waveOfRegion = regions.indices.map { r in targeted[r] ? (starts.firstIndex(of: startOfRegion[r]) ?? -1) : -1 }
        return (starts, waveOfRegion)
    }

    /// The instants campaign `c` calls its warm, seconds (the simulation's
    /// `PushWorld.warmCallTicks`): `warm.aheadSeconds` before each wave (not before 0) for a
    /// campaign using a calendar field, else `timing.warmSeconds`; empty when it does not warm.
    package static func warmCallSeconds(_ w: PushWorldConfig, campaign c: Int) -> [Double] {
        let campaign = w.campaigns[c]
        let timing = campaign.timing
        guard timing.warms else { return [] }
        guard campaign.usesCalendar else { return [timing.warmSeconds] }
        return waves(w, campaign: c).startSeconds.map { max(0, $0 - timing.warmAheadSeconds) }
    }

    /// The instants campaign `c`'s creative swap purges, seconds, and the send each precedes (the
    /// simulation's `PushWorld.swapCallTicks`): `creativeSwap.secondsBeforeSend` before each wave
    /// (not before 0) for a campaign using a calendar field, else `timing.swapSeconds` before
    /// `sendStartSeconds`; empty without a swap.
    package static func swapCallSeconds(_ w: PushWorldConfig, campaign c: Int) -> [(call: Double, send: Double)] {
        let campaign = w.campaigns[c]
        let timing = campaign.timing
        guard let lead = timing.swapBeforeSendSeconds, let swap = timing.swapSeconds else { return [] }
        guard campaign.usesCalendar else { return [(swap, timing.sendStartSeconds)] }
        return waves(w, campaign: c).startSeconds.map { (max(0, $0 - lead), $0) }
    }

    /// Campaign `c`'s waves as planned from the configuration: each wave's start, seconds, and its
    /// share of the campaign's expected pushes (its regions' share of the device weights, over the
    /// targeted regions'). An estimate for reports and `validate`, not the run's count.
    package static func plannedWaves(_ w: PushWorldConfig, campaign c: Int) -> [(startSeconds: Double, share: Double)] {
        let waves = waves(w, campaign: c)
        let regions = w.infra.topology.effectiveRegions
        let weights = w.population.regionWeights.count == regions.count ? w.population.regionWeights : regions.map(\.audienceWeight)
        let all = max(weights.reduce(0, +), 1e-300)
        return waves.startSeconds.indices.map { k in
            let mine = regions.indices.filter { waves.waveOfRegion[$0] == k }.reduce(0) { $0 + weights[$1] }
            return (waves.startSeconds[k], mine / all)
        }
    }

    /// Every problem of the scenario's calendar fields: unknown region or segment names, an
    /// audience rule naming no other campaign, a cycle of rules, a share the rule cannot reach.
    /// - Complexity: O(campaigns² + campaigns × (regions + segments)).
    package static func issues(_ w: PushWorldConfig) -> [CalendarIssue] {
        var issues: [CalendarIssue] = []
        let regionCount = w.infra.topology.effectiveRegions.count
        let names = w.infra.topology.regionNames
        let regionNames = (0..<regionCount).map { regionName($0, names: names) }
        let segmentNames = w.users.segments.map(\.name)
        let campaignNames = w.campaigns.map(\.name)
        func at(_ c: Int, _ steps: CalendarPathStep...) -> [CalendarPathStep] { [.key("campaigns"), .index(c)] + steps }
        for (c, campaign) in w.campaigns.enumerated() {
            for (i, name) in campaign.regions.enumerated() where !regionNames.contains(name) {
                issues.append(CalendarIssue(path: at(c, .key("regions"), .index(i)),
                                            expected: "a region's name: \(listed(regionNames)) (infra.topology.regionNames, or \"region N\" when it names none)",
                                            found: "\"\(name)\""))
            }
            for (i, name) in campaign.segments.enumerated() where !segmentNames.contains(name) {
                issues.append(CalendarIssue(path: at(c, .key("segments"), .index(i)),
                                            expected: "a segment's name in users.segments: \(listed(segmentNames))", found: "\"\(name)\""))
            }
            if campaign.sendOnLocalDay != nil && campaign.sendAtLocalSeconds == nil {
                issues.append(CalendarIssue(path: at(c, .key("sendOnLocalDay")), expected: "sendAtLocalSeconds with it (the local time to send at)",
                                            found: "\(campaign.sendOnLocalDay ?? 0) without sendAtLocalSeconds"))
            }
            if campaign.sendOnLocalDay != nil, let first = waves(w, campaign: c).startSeconds.first, first < 0 {
                issues.append(CalendarIssue(path: at(c, .key("sendOnLocalDay")),
                                            expected: "a local day whose send time is at or after t = 0 in every targeted region (a later day, or a later population.dozeNight.clockAtStartSeconds)",
                                            found: "\(campaign.sendOnLocalDay ?? 0) (first wave at \(first) s)"))
            }
            let rule = campaign.audience.rule
            switch (rule, campaign.audience.campaign) {
            case (.independent, nil):
                break
            case (.independent, let other?):
                issues.append(CalendarIssue(path: at(c, .key("audience"), .key("campaign")),
                                            expected: "no campaign with the rule \"independent\" (or the rule \"disjointFrom\" or \"nestedIn\")",
                                            found: "\"\(other)\""))
            case (_, nil):
                issues.append(CalendarIssue(path: at(c, .key("audience"), .key("campaign")),
                                            expected: "the name of another campaign (the rule \"\(rule.rawValue)\" needs one)", found: "absent"))
            case (_, let other?):
                guard let o = campaignNames.firstIndex(of: other), o != c else {
                    issues.append(CalendarIssue(path: at(c, .key("audience"), .key("campaign")),
                                                expected: "the name of another campaign: \(listed(campaignNames.filter { $0 != campaign.name }))",
                                                found: "\"\(other)\""))
                    continue
                }
                if let cycle = ruleCycle(w, from: c) {
                    issues.append(CalendarIssue(path: at(c, .key("audience"), .key("campaign")),
                                                expected: "audience rules without a cycle", found: cycle.map { "\"\($0)\"" }.joined(separator: " → ")))
                    continue
                }
                let mine = campaign.audienceShare, theirs = w.campaigns[o].audienceShare
                if rule == .disjointFrom, mine + theirs > 1 + shareSlack {
                    issues.append(CalendarIssue(path: at(c, .key("audienceShare")),
                                                expected: "a share ≤ 1 − \(theirs) (\"\(other)\"'s audienceShare), so the two audiences can be disjoint",
                                                found: "\(mine)"))
                }
                if rule == .nestedIn, mine > theirs + shareSlack {
                    issues.append(CalendarIssue(path: at(c, .key("audienceShare")),
                                                expected: "a share ≤ \(theirs) (\"\(other)\"'s audienceShare), so the audience can nest in it",
                                                found: "\(mine)"))
                }
            }
        }
        return issues
    }

    /// The names along campaign `c`'s chain of audience rules when it returns to a campaign already
    /// on it (first repeated name last); nil when the chain ends.
    static func ruleCycle(_ w: PushWorldConfig, from c: Int) -> [String]? {
        var seen: [Int] = [c]
        var at = c
        while w.campaigns[at].audience.rule != .independent, let other = w.campaigns[at].audience.campaign,
              let o = w.campaigns.firstIndex(where: { $0.name == other }) {
            if seen.contains(o) { return (seen + [o]).map { w.campaigns[$0].name } }
            seen.append(o)
            at = o
        }
        return nil
    }

    /// Up to eight names, quoted, and how many there are beyond them.
    static func listed(_ names: [String]) -> String {
        if names.isEmpty { return "(none)" }
        let shown = names.prefix(8).map { "\"\($0)\"" }.joined(separator: ", ")
        return names.count > 8 ? "one of \(shown), … (\(names.count))" : "one of \(shown)"
    }
}

/// One campaign's calendar resolved for a run (only campaigns that use a calendar field have one).
struct CampaignCalendar: Sendable {
    /// Per region: the wave its devices are sent in (index into `waveStartTicks`), -1 when the
    /// campaign does not target the region.
    let waveOfRegion: [Int32]
    /// Whether membership needs the device's region (waves or region targeting).
    let readsRegion: Bool
    /// Per segment: targeted; empty: every segment.
    let segmentTargeted: [Bool]
    /// Wave starts, ticks, ascending.
    let waveStartTicks: [Int64]
    let rule: AudienceRuleConfig
    /// The campaign the rule refers to; -1 for `independent`.
    let reference: Int
    /// The probability the device's own audience draw is made with: the share, over what the rule
    /// leaves (1 − the other's share for `disjointFrom`, the other's share for `nestedIn`).
    let drawShare: Double
}

/// Every campaign's calendar and the audience membership rules, for one run. No per-device state:
/// a device's membership is recomputed from its (seed, device, campaign) streams when asked.
struct CampaignCalendars: Sendable {
    /// Per campaign; nil for a campaign using no calendar field.
    let campaigns: [CampaignCalendar?]
    /// Per campaign, `audienceShare`.
    let shares: [Double]

    /// - Throws: `PushModelError` with the first of `CalendarRules.issues`.
    init(_ w: PushWorldConfig) throws {
        if let first = CalendarRules.issues(w).first {
            throw PushModelError(path: first.pathText, reason: "expected \(first.expected), found \(first.found)")
        }
        shares = w.campaigns.map(\.audienceShare)
        let segmentNames = w.users.segments.map(\.name)
        campaigns = w.campaigns.indices.map { c in
            let campaign = w.campaigns[c]
            guard campaign.usesCalendar else { return nil }
            let waves = CalendarRules.waves(w, campaign: c)
            let reference = campaign.audience.campaign.flatMap { name in w.campaigns.firstIndex { $0.name == name } } ?? -1
            let share = campaign.audienceShare
            let theirs = reference >= 0 ? w.campaigns[reference].audienceShare : 1
            var draw: Double
            switch campaign.audience.rule {
            case .independent: draw = share
            case .disjointFrom: draw = theirs >= 1 ? 0 : share / (1 - theirs)
            case .nestedIn: draw = theirs <= 0 ? 0 : share / theirs
            }
            draw = min(1, max(0, draw))
            return CampaignCalendar(
                waveOfRegion: waves.waveOfRegion.map { Int32($0) },
                readsRegion: waves.startSeconds.count > 1 || !campaign.regions.isEmpty,
                segmentTargeted: campaign.segments.isEmpty ? [] : segmentNames.map { campaign.segments.contains($0) },
                waveStartTicks: waves.startSeconds.map { SimDuration.seconds($0).ticks },
                rule: campaign.audience.rule, reference: reference, drawShare: draw)
        }
    }

    /// Whether device `d` is in campaign `c`'s audience and, for `wave` ≥ 0, sent in that wave.
    /// Recomputed from the device's streams (its region, segment and the audience draws of `c`
    /// and of the campaigns its rule refers to); the rules have no cycle, so the recursion ends.
    func isMember(_ d: DeviceID, campaign c: Int, wave: Int, population: Population) -> Bool {
        guard let cal = campaigns[c] else {
            return population.inAudience(d, campaign: CampaignID(c), audienceShare: shares[c])
        }
        if cal.readsRegion {
            let w = Int(cal.waveOfRegion[population.region(of: d)])
            if w < 0 || (wave >= 0 && w != wave) { return false }
        }
        if !cal.segmentTargeted.isEmpty, !cal.segmentTargeted[population.device(d).segment] { return false }
        switch cal.rule {
        case .independent: break
        case .disjointFrom: if isMember(d, campaign: cal.reference, wave: -1, population: population) { return false }
        case .nestedIn: if !isMember(d, campaign: cal.reference, wave: -1, population: population) { return false }
        }
        return population.inAudience(d, campaign: CampaignID(c), audienceShare: cal.drawShare)
    }

    /// The wave device `d` is sent in by campaign `c` (0 for a campaign with one wave).
    func wave(of d: DeviceID, campaign c: Int, population: Population) -> Int {
        guard let cal = campaigns[c], cal.readsRegion else { return 0 }
        return Int(cal.waveOfRegion[population.region(of: d)])
    }
}
