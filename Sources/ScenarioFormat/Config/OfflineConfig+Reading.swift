import Foundation
import PushModel

// The scenario format of offline windows (`providers.offline`): optional; without it no device is
// offline.

extension ProviderOfflineConfig: Codable, ConfigReadable {
    static var defaultValue: ProviderOfflineConfig { ProviderOfflineConfig() }
    static var fields: [ConfigField<ProviderOfflineConfig>] {
        [
            .init("deviceShare", \.deviceShare, .probability),
            .init("startSeconds", \.startSeconds, .numbers(0...604_800, unit: "seconds")),
            .init("startSpreadSeconds", \.startSpreadSeconds, .numbers(0...604_800, unit: "seconds")),
            .init("durationSeconds", \.durationSeconds, .durations(atMost: ProviderOfflineConfig.durationSecondsMax)),
        ]
    }
}
