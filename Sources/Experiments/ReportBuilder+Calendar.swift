import Foundation
import PushModel
import ReportKit

extension ReportBuilder {
    /// The send windows of a campaign sent at a local time (`sendAtLocalSeconds`): one band per
    /// wave, from its start for the wave's expected pushes at the campaign's rate (its regions'
    /// share of the device weights; an estimate for shading only, without the queueing of a wave
    /// behind a longer one); nil for any other campaign.
    static func calendarSendBands(_ world: PushWorldConfig, campaign c: Int) -> [TimeBand]? {
        let campaign = world.campaigns[c]
        guard campaign.sendAtLocalSeconds != nil else { return nil }
        let waves = CalendarRules.waves(world, campaign: c)
        let regions = world.infra.topology.effectiveRegions
        let weights = world.population.regionWeights.count == regions.count ? world.population.regionWeights : regions.map(\.audienceWeight)
        let total = max(weights.reduce(0, +), 1e-12)
        let pushes = campaign.timing.pushesTargeted(devices: world.population.devices)
        let rate = max(campaign.timing.sendRatePerSecond, 1e-9)
        return waves.startSeconds.enumerated().map { w, start in
            let share = regions.indices.filter { waves.waveOfRegion[$0] == w }.reduce(0) { $0 + weights[$1] } / total
            let end = start + pushes * share / rate
            return TimeBand(fromSeconds: start, toSeconds: min(max(end, start + 1), world.horizonSeconds),
                            label: "send \(campaign.name) wave \(w + 1)")
        }
    }
}
