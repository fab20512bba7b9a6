import Foundation
import PushModel

// The scenario format of the radio energy model (the top-level `energy` section).

extension FiveGMode: SchemaDescribed {
    static func jsonSchema(_ context: SchemaContext) -> JSONValue {
        .object(["enum": .array(allCases.map { .string($0.rawValue) })])
    }
}

extension RadioProfile: Decodable, Encodable, ConfigReadable {
    /// Absent keys take the LTE set; ``RadioProfiles`` reads each radio over its own set.
    static var defaultValue: RadioProfile { .lte }

    static var fields: [ConfigField<RadioProfile>] {
        [
            .init("promotionSeconds", \.promotionSeconds, .numbers(0...10, unit: "seconds")),
            .init("promotionWatts", \.promotionWatts, .numbers(0...20, unit: "W")),
            .init("activeWatts", \.activeWatts, .numbers(0...20, unit: "W")),
            .init("downlinkWattsPerMbps", \.downlinkWattsPerMbps, .numbers(0...1, unit: "W per Mbit/s")),
            .init("tailSeconds", \.tailSeconds, .numbers(0...60, unit: "seconds")),
            .init("tailWatts", \.tailWatts, .numbers(0...20, unit: "W")),
            .init("secondTailSeconds", \.secondTailSeconds, .numbers(0...60, unit: "seconds")),
            .init("secondTailWatts", \.secondTailWatts, .numbers(0...20, unit: "W")),
        ]
    }
}

extension RadioProfiles: Decodable, Encodable, SchemaDescribed {
    @usableFromInline package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ConfigKey.self)
        var issues: [ConfigIssue] = []
        let names = RadioKind.allCases.map(\.description)
        for k in c.allKeys where !names.contains(k.stringValue) {
            issues.append(ConfigIssue(key: k.stringValue, expected: "one of \(names.joined(separator: ", "))", found: "unknown radio"))
        }
        var profiles = RadioProfiles()
        for kind in RadioKind.allCases where c.contains(ConfigKey(kind.description)) {
            let sub = try c.superDecoder(forKey: ConfigKey(kind.description))
            do {
                profiles[kind] = try RadioProfile.read(from: sub, defaults: kind.standard)
            } catch let e as ConfigIssues {
                issues += e.issues.map { $0.below(.key(kind.description)) }
            }
        }
        if !issues.isEmpty { throw ConfigIssues(issues) }
        self = profiles
    }

    @usableFromInline package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ConfigKey.self)
        for kind in RadioKind.allCases { try c.encode(self[kind], forKey: ConfigKey(kind.description)) }
    }

    /// One parameter set per radio, each read over its own sourced values.
    static func jsonSchema(_ context: SchemaContext) -> JSONValue {
        let profile = context.at(context.section + ".RADIO").schema(of: RadioProfile.self)
        return context.object(RadioKind.allCases.map { ($0.description, profile) })
    }
}

extension EnergyConfig: Codable, ConfigReadable {
    static var defaultValue: EnergyConfig { EnergyConfig() }

    static var fields: [ConfigField<EnergyConfig>] {
        [
            .init("enabled", \.enabled),
            .init("batteryCapacityWh", \.batteryCapacityWh, .numbers(0.1...1_000, unit: "Wh")),
            .init("promotionDelaysFirstByte", \.promotionDelaysFirstByte),
            .init("fiveGMode", \.fiveGMode),
            .init("profiles", \.profiles),
        ]
    }
}
