import Foundation
import PreloadKit

/// PreloadKit's decision kind (`PreloadPolicy.decision`) in scenario form
/// (`preloadPolicy.decision`). Absent: PreloadKit's default, `criticalOnly`, and results exactly
/// as without the field.
package struct DecisionConfig: Sendable, Equatable {
    package enum Kind: String, Sendable, Equatable, CaseIterable, Codable {
        case criticalOnly, never, threshold, budgeted
    }

    package var kind: Kind = .criticalOnly
    /// `threshold`: least open-probability hint pre-staged. 0.3: judgement (above the 15–25 %
    /// non-messaging conversion of Pielot et al., MobileHCI 2018).
    package var thresholdOpenProbability: Double = 0.3
    /// `budgeted`: PreloadKit's `BudgetedPolicy` defaults (cellular bytes and estimated joules a
    /// day, the goal time after the local midnight).
    package var dailyDataBytes: Int64 = BudgetedPolicy().dailyDataBytes
    package var dailyEnergyJoules: Double = BudgetedPolicy().dailyEnergyJoules
    package var goalAfterDayStartSeconds: Int64 = BudgetedPolicy().goalAfterDayStartSeconds
    /// `budgeted`: the controller's gain (`BudgetedPolicy.controllerGain`).
    package var controllerGain: Double = BudgetedPolicy().controllerGain

    package init() {}

    /// PreloadKit's decision kind in a world whose UTC clock reads `clockAtStartSeconds` at t = 0
    /// (UTC days start there; each device's day starts at its local midnight, from the time zone
    /// it reports, `DeviceInputs.utcOffsetSeconds`).
    package func kit(clockAtStartSeconds: Double) -> PrestageDecisionKind {
        switch kind {
        case .criticalOnly: return .criticalOnly
        case .never: return .never
        case .threshold: return .threshold(openProbabilityMin: thresholdOpenProbability)
        case .budgeted:
            var b = BudgetedPolicy()
            b.dailyDataBytes = dailyDataBytes
            b.dailyEnergyJoules = dailyEnergyJoules
            b.goalAfterDayStartSeconds = goalAfterDayStartSeconds
            b.controllerGain = controllerGain
            let clock = clockAtStartSeconds.truncatingRemainder(dividingBy: 86_400)
            let offset = (86_400 - (clock < 0 ? clock + 86_400 : clock)).truncatingRemainder(dividingBy: 86_400)
            b.dayStartOffsetMicroseconds = min(BudgetedPolicy.dayMicroseconds - 1, Int64((offset * 1e6).rounded()))
            return .budgeted(b)
        }
    }
}

/// The campaign service's per-push open-probability hint and the per-user open probabilities
/// behind it (`users.openHint`). Absent: no hint is sent and each user opens with the segment's
/// probability, exactly as without the field. Present: user u's probability of opening campaign
/// c is logistic(logit(p_segment) + a_u + h(c)), with a_u ~ Normal(0, `userSdLogit`) per device
/// and h(c) = `eveningPeakLogit` × cos(2π (local hour of c's send − `peakHour`) / 24); the user's
/// tap is drawn with that probability, and the push carries the signed hint
/// round(100 × logistic(logit(p) + e)), e ~ Normal(0, `noiseSdLogit`) per (device, campaign).
package struct OpenHintConfig: Sendable, Equatable {
    /// The hint's error on the logit scale (0: the hint is the user's probability, to the
    /// percent). 0.5: judgement.
    package var noiseSdLogit: Double = 0.5
    /// Spread of users' propensity to open within a segment, logit scale. 1.0: judgement.
    package var userSdLogit: Double = 1.0
    /// Amplitude of the time-of-day effect, logit scale. 0.5: judgement, opens peak in the
    /// evening (Pielot et al., MobileHCI 2018).
    package var eveningPeakLogit: Double = 0.5
    /// Local hour of the peak. 20: judgement.
    package var peakHour: Double = 20

    package init() {}
}

/// What each device's OS reports to PreloadKit's decision kinds (`population.devicePower`):
/// Low Power Mode, charging and the battery level, drawn once per device for the run from its own
/// (seed, device, purpose) stream. Absent: the devices report none of them (PreloadKit then
/// applies no power row). Only `threshold` and `budgeted` read them.
package struct DevicePowerConfig: Sendable, Equatable {
    /// Share of devices in Low Power Mode / battery saver. 0.1: judgement.
    package var lowPowerModeShare: Double = 0.1
    /// Share of devices on the charger. 0.15: judgement.
    package var chargingShare: Double = 0.15
    /// The battery level is uniform in [`batteryLevelMin`, 1] per device. 0.05: judgement.
    package var batteryLevelMin: Double = 0.05

    package init() {}
}
