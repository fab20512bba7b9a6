import Foundation
import InfraModel
import Stochastic

/// Per-user open probabilities and the campaign service's noisy hint of them
/// (`users.openHint`, see `OpenHintConfig` for the model). Nothing is stored per device: a
/// user's propensity is drawn from its own (run seed, device, purpose) stream whenever needed, the
/// hint's error from a (run seed, device × campaign, purpose) stream, both through GSL.
struct OpenHintModel {
    /// Per (campaign, region), campaign-major: the time-of-day term h(c) on the logit scale at the
    /// local hour the campaign sends to the region (its wave's instant with a calendar, else
    /// `sendStartSeconds`, on the region's local clock).
    let campaignLogit: [Double]
    let regionCount: Int
    /// Whether h(c) differs between regions for some campaign (else region 0's is every region's,
    /// and a device's region is not drawn for it).
    let readsRegion: Bool
    let userSpread: Sampler?
    let hintNoise: Sampler?
    let purposePropensity = StreamPurpose("push.user.openPropensity").rawValue
    let purposeHint = StreamPurpose("push.user.openHint").rawValue

    init(_ h: OpenHintConfig, world w: PushWorldConfig) throws {
        let regions = w.infra.topology.effectiveRegions
        let clock = w.population.dozeNight.clockAtStartSeconds
        regionCount = max(1, regions.count)
        var logits: [Double] = []
        logits.reserveCapacity(w.campaigns.count * regionCount)
        for c in w.campaigns.indices {
            let campaign = w.campaigns[c]
            let waves = campaign.usesCalendar ? CalendarRules.waves(w, campaign: c) : nil
            for r in 0..<regionCount {
                var send = campaign.sendStartSeconds
                if let waves, r < waves.waveOfRegion.count, waves.waveOfRegion[r] >= 0 { send = waves.startSeconds[waves.waveOfRegion[r]] }
                let offset = r < regions.count ? Double(regions[r].utcOffsetSeconds) : 0
                let hour = ((clock + offset + send) / 3_600).truncatingRemainder(dividingBy: 24)
                logits.append(h.eveningPeakLogit * cos(2 * Double.pi * (hour - h.peakHour) / 24))
            }
        }
        campaignLogit = logits
        let count = regionCount
        readsRegion = w.campaigns.indices.contains { c in (1..<count).contains { logits[c * count + $0] != logits[c * count] } }
        userSpread = h.userSdLogit > 0 ? try Population.sampler(.normal(mean: 0, sd: h.userSdLogit, lower: nil, upper: nil), "users.openHint.userSdLogit") : nil
        hintNoise = h.noiseSdLogit > 0 ? try Population.sampler(.normal(mean: 0, sd: h.noiseSdLogit, lower: nil, upper: nil), "users.openHint.noiseSdLogit") : nil
    }

    static func logit(_ p: Double) -> Double {
        let q = min(1 - 1e-6, max(1e-6, p))
        return log(q / (1 - q))
    }

    static func logistic(_ x: Double) -> Double { 1 / (1 + exp(-x)) }
}

extension Population {
    /// Device `d`'s probability of opening campaign `c` given its segment's probability `base`.
    func openProbability(_ d: DeviceID, campaign c: CampaignID, base: Double, model: OpenHintModel) -> Double {
        let region = model.readsRegion ? self.region(of: d) : 0
        var x = OpenHintModel.logit(base) + model.campaignLogit[c.index * model.regionCount + region]
        if let spread = model.userSpread {
            x += spread.sample(stream(entity: UInt64(d.rawValue), purpose: model.purposePropensity))
        }
        return OpenHintModel.logistic(x)
    }

    /// The hint campaign `c`'s push to device `d` carries, whole percent, for the user's
    /// probability `p`.
    func hintPercent(_ d: DeviceID, campaign c: CampaignID, probability p: Double, model: OpenHintModel) -> Int8 {
        var x = OpenHintModel.logit(p)
        if let noise = model.hintNoise {
            x += noise.sample(stream(entity: UInt64(d.rawValue) | UInt64(c.rawValue) << 32, purpose: model.purposeHint))
        }
        return Int8(min(100, max(0, (100 * OpenHintModel.logistic(x)).rounded())))
    }
}

extension Population {
    /// Device `d`'s Low Power Mode, charging and battery level (`population.devicePower`), from a
    /// stream of its own, so the other attributes keep their draws.
    func drawPower(_ d: DeviceID, _ power: DevicePowerConfig, into a: inout DeviceAttributes) {
        let rng = stream(entity: UInt64(d.rawValue), purpose: StreamPurpose("push.device.power").rawValue)
        a.lowPowerMode = rng.bernoulli(power.lowPowerModeShare)
        a.charging = rng.bernoulli(power.chargingShare)
        a.batteryLevel = rng.flat(power.batteryLevelMin, 1)
    }
}
