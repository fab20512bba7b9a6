import Foundation
import PreloadKit
import PushModel

// The scenario format of PreloadKit's decision kind (`preloadPolicy.decision`) and of the
// campaign service's open-probability hint (`users.openHint`).

extension DecisionConfig: Codable, ConfigReadable {
    static var defaultValue: DecisionConfig { DecisionConfig() }
    static var fields: [ConfigField<DecisionConfig>] {
        [
            .init("kind", \.kind),
            .init("thresholdOpenProbability", \.thresholdOpenProbability, .probability),
            // At most 4 GB: the simulator keeps a device's day of spending in 32 bits.
            .init("dailyDataBytes", \.dailyDataBytes, .integers(0...4_000_000_000)),
            .init("dailyEnergyJoules", \.dailyEnergyJoules, .numbers(0...1_000_000, unit: "joules")),
            .init("goalAfterDayStartSeconds", \.goalAfterDayStartSeconds, .integers(60...86_400)),
            .init("controllerGain", \.controllerGain, .numbers(0...10)),
        ]
    }
}

extension OpenHintConfig: Codable, ConfigReadable {
    static var defaultValue: OpenHintConfig { OpenHintConfig() }
    static var fields: [ConfigField<OpenHintConfig>] {
        [
            .init("noiseSdLogit", \.noiseSdLogit, .numbers(0...10)),
            .init("userSdLogit", \.userSdLogit, .numbers(0...10)),
            .init("eveningPeakLogit", \.eveningPeakLogit, .numbers(-10...10)),
            .init("peakHour", \.peakHour, .numbers(0...24, unit: "hours")),
        ]
    }
}

extension DevicePowerConfig: Codable, ConfigReadable {
    static var defaultValue: DevicePowerConfig { DevicePowerConfig() }
    static var fields: [ConfigField<DevicePowerConfig>] {
        [
            .init("lowPowerModeShare", \.lowPowerModeShare, .probability),
            .init("chargingShare", \.chargingShare, .probability),
            .init("batteryLevelMin", \.batteryLevelMin, .probability),
        ]
    }
}
