import Foundation
import PushModel

// The scenario format of the analytics endpoint's capacity (`analytics`): optional; without it
// receipts are only counted (their per-second arrivals), as before.

extension AnalyticsConfig: Codable, ConfigReadable {
    static var defaultValue: AnalyticsConfig { AnalyticsConfig() }
    static var fields: [ConfigField<AnalyticsConfig>] {
        [
            .init("capacityPerSecond", \.capacityPerSecond, required: true,
                  .atLeast(0, exclusive: true, saying: "receipts served a second, a finite number > 0")),
            .init("queueMax", \.queueMax, .integers(0...AnalyticsConfig.queueMaxLimit)),
        ]
    }
}
