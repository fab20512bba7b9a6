import Foundation
import InfraModel
import Stochastic

// The scenario format of InfraModel's configuration (the `infra` section): JSON keys, ranges and
// their wording. InfraModel's types are plain values; every range is checked here, once.

extension NetworkProfile: Decodable, Encodable, ConfigReadable {
    /// Absent keys take `standard(.lte)`; ``NetworkConfig`` reads each class over its own defaults.
    static var defaultValue: NetworkProfile { .standard(.lte) }

    static var fields: [ConfigField<NetworkProfile>] {
        [
            .init("rttSeconds", \.rttSeconds, .durations(atMost: sampledSecondsMax)),
            .init("downlinkBitsPerSecond", \.downlinkBitsPerSecond, ConfigRule.magnitudes("bit/s", atMost: .infinity).then { d in
                guard let m = d.mean else { return nil }
                return m > 0 ? nil : ("a positive mean", "mean \(m)")
            }),
            .init("failureProbability", \.failureProbability, .probability),
            .init("stallProbability", \.stallProbability, .probability),
            .init("sharedCapacityBitsPerSecond", \.sharedCapacityBitsPerSecond,
                  ConfigRule("a finite value >= 0 (0 = not shared)") { $0 >= 0 && $0.isFinite }),
            // Below 1: at 1 every segment would be lost and no transfer would end.
            .init("segmentLossProbability", \.segmentLossProbability, unwritten: defaultValue.segmentLossProbability,
                  ConfigRule("a probability in [0, 1)", schema: ["minimum": .number(0), "exclusiveMaximum": .number(1)]) { $0 >= 0 && $0 < 1 }),
        ]
    }
}

extension NetworkConfig: Decodable, Encodable {
    @usableFromInline package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ConfigKey.self)
        var issues: [ConfigIssue] = []
        for k in c.allKeys where !NetworkClass.allCases.contains(where: { $0.description == k.stringValue }) {
            issues.append(ConfigIssue(key: k.stringValue, expected: "one of wifi, 5g, lte, 4g, 3g, 2g, slow-2g",
                                      found: "unknown network class"))
        }
        var config = NetworkConfig()
        for cls in NetworkClass.allCases where c.contains(ConfigKey(cls.description)) {
            let sub = try c.superDecoder(forKey: ConfigKey(cls.description))
            do {
                config[cls] = try NetworkProfile.read(from: sub, defaults: .standard(cls))
            } catch let e as ConfigIssues {
                issues += e.issues.map { $0.below(.key(cls.description)) }
            }
        }
        if !issues.isEmpty { throw ConfigIssues(issues) }
        self = config
    }

    @usableFromInline package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ConfigKey.self)
        for cls in NetworkClass.allCases { try c.encode(self[cls], forKey: ConfigKey(cls.description)) }
    }
}

extension ConnectionSetupConfig: Decodable, Encodable, ConfigReadable {
    static var defaultValue: ConnectionSetupConfig { ConnectionSetupConfig() }
    static var fields: [ConfigField<ConnectionSetupConfig>] {
        [
            .init("dnsRoundTrips", \.dnsRoundTrips, .integers(0...4)),
            .init("tcpRoundTrips", \.tcpRoundTrips, .integers(0...4)),
            .init("tlsRoundTrips", \.tlsRoundTrips, .integers(0...4)),
        ]
    }
}

extension RegionConfig: Decodable, Encodable, ConfigReadable {
    /// The defaults do not depend on the (required) index.
    static var defaultValue: RegionConfig { RegionConfig(popIndex: 0) }
    /// `popIndex` is checked against `popCount` by ``TopologyConfig``.
    static var fields: [ConfigField<RegionConfig>] {
        [
            .init("popIndex", \.popIndex, required: true),
            .init("pathRttSeconds", \.pathRttSeconds, .numbers(0...10, saying: "seconds in [0, 10]")),
            .init("audienceWeight", \.audienceWeight, .atLeast(0, saying: "a finite weight >= 0")),
            .init("capacityScale", \.capacityScale, .atLeast(0, exclusive: true, saying: "a finite factor > 0")),
            // calendar: written only when set, so scenarios without it encode and hash as before.
            .init("utcOffsetSeconds", \.utcOffsetSeconds, unwritten: 0,
                  .integers(-43_200...50_400, saying: "whole seconds in -43200...50400 (UTC−12:00 to UTC+14:00)")),
        ]
    }
}

extension BackgroundPressure: Decodable, Encodable {
    @usableFromInline package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ConfigKey.self)
        func value<T: Decodable>(_ key: String) throws -> T { try c.decode(T.self, forKey: ConfigKey(key)) }
        let kind: String = try value("kind")
        var issues: [ConfigIssue] = []
        func check(_ ok: Bool, _ key: String, _ found: String, _ expected: String) {
            if !ok { issues.append(ConfigIssue(key: key, expected: expected, found: found)) }
        }
        switch kind {
        case "none":
            self = .none
        case "explicitStream":
            let r: Double = try value("requestsPerSecond"), n: Int = try value("catalogueObjects")
            let a: Double = try value("zipfExponent"), b: Int64 = try value("objectBytes")
            check(r > 0 && r <= 1e6, "requestsPerSecond", "\(r)", "a rate in (0, 1e6]")
            // The stream draws objects from a categorical table: the table's limit is the catalogue's.
            let objectsMax = Distribution.Limits.tableEntriesMax
            check(n >= 1 && n <= objectsMax, "catalogueObjects", "\(n)", "an integer in 1...\(objectsMax)")
            check(a >= 0 && a <= 5, "zipfExponent", "\(a)", "an exponent in [0, 5]")
            check(b >= 1 && b <= 1 << 34, "objectBytes", "\(b)", "bytes in 1...2^34")
            self = .explicitStream(requestsPerSecond: r, catalogueObjects: n, zipfExponent: a, objectBytes: b)
        case "characteristicTime":
            let s: Double = try value("seconds")
            check(s > 0 && s <= 365 * 86400, "seconds", "\(s)", "seconds in (0, 1 year]")
            self = .characteristicTime(seconds: s)
        case let other:
            throw ConfigIssue(key: "kind", expected: "none, explicitStream or characteristicTime", found: other)
        }
        if !issues.isEmpty { throw ConfigIssues(issues) }
    }

    @usableFromInline package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ConfigKey.self)
        switch self {
        case .none: try c.encode("none", forKey: ConfigKey("kind"))
        case let .explicitStream(r, n, a, b):
            try c.encode("explicitStream", forKey: ConfigKey("kind"))
            try c.encode(r, forKey: ConfigKey("requestsPerSecond"))
            try c.encode(n, forKey: ConfigKey("catalogueObjects"))
            try c.encode(a, forKey: ConfigKey("zipfExponent"))
            try c.encode(b, forKey: ConfigKey("objectBytes"))
        case let .characteristicTime(s):
            try c.encode("characteristicTime", forKey: ConfigKey("kind"))
            try c.encode(s, forKey: ConfigKey("seconds"))
        }
    }
}

/// Bytes of one cache's capacity (a PoP override's too).
private var cacheBytes: ConfigRule<Int64> { .integers(0...(1 << 50), saying: "bytes in 0...2^50") }

extension CacheConfig: Decodable, Encodable, ConfigReadable {
    static var defaultValue: CacheConfig { CacheConfig() }
    static var fields: [ConfigField<CacheConfig>] {
        [
            .init("capacityBytes", \.capacityBytes, cacheBytes),
            .init("entriesMax", \.entriesMax, .integers(1...100_000_000)),
            .init("background", \.background),
        ]
    }
}

extension PopOverride: Decodable, Encodable, ConfigReadable {
    static var defaultValue: PopOverride { PopOverride(popIndex: 0) }
    /// `popIndex` and `shieldIndex` are checked against the counts by ``TopologyConfig``.
    static var fields: [ConfigField<PopOverride>] {
        [
            .init("popIndex", \.popIndex, required: true),
            .init("shieldIndex", optional: \.shieldIndex),
            .init("edgeProcessingSeconds", optional: \.edgeProcessingSeconds, .durations(atMost: sampledSecondsMax)),
            .init("upstreamSeconds", optional: \.upstreamSeconds, .durations(atMost: sampledSecondsMax)),
            .init("cacheCapacityBytes", optional: \.cacheCapacityBytes, cacheBytes),
        ]
    }
}

extension TopologyConfig: Decodable, Encodable, ConfigReadable {
    static var defaultValue: TopologyConfig { TopologyConfig() }
    static var fields: [ConfigField<TopologyConfig>] {
        [
            .init("popCount", \.popCount, .integers(1...10_000)),
            .init("shieldCount", \.shieldCount, .integers(1...1_000)),
            .init("regions", \.regions, .counts(0...1_000_000, "at most 1000000", found: { "\($0.count) regions" })),
            .init("popOverrides", \.popOverrides),
            // names
            .init("popNames", \.popNames, unwritten: [], TopologyNameRules.schemaRule),
            .init("regionNames", \.regionNames, unwritten: [], TopologyNameRules.schemaRule),
        ]
    }

    /// Region and override indices against the counts.
    static func relations(_ t: TopologyConfig) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        func index(_ i: Int, _ count: Int, _ path: [JSONPath.Component]) {
            if !(i >= 0 && i < count) { issues.append(issue(path, "an index in 0..<\(count)", "\(i)")) }
        }
        for (i, r) in t.regions.enumerated() { index(r.popIndex, t.popCount, [.key("regions"), .index(i), .key("popIndex")]) }
        for (i, o) in t.popOverrides.enumerated() {
            index(o.popIndex, t.popCount, [.key("popOverrides"), .index(i), .key("popIndex")])
            if let s = o.shieldIndex { index(s, t.shieldCount, [.key("popOverrides"), .index(i), .key("shieldIndex")]) }
        }
        return issues + TopologyNameRules.issues(t)
    }
}

extension TierConfig: Decodable, Encodable, ConfigReadable {
    static var defaultValue: TierConfig { TierConfig() }
    static var fields: [ConfigField<TierConfig>] {
        [
            .init("tieringEnabled", \.tieringEnabled),
            .init("requestCollapsingEnabled", \.requestCollapsingEnabled),
            .init("edgeProcessingSeconds", \.edgeProcessingSeconds, .durations(atMost: sampledSecondsMax)),
            .init("edgeToShieldSeconds", \.edgeToShieldSeconds, .durations(atMost: sampledSecondsMax)),
            .init("toOriginSeconds", \.toOriginSeconds, .durations(atMost: sampledSecondsMax)),
            .init("notModifiedBytes", \.notModifiedBytes, .integers(1...65_536)),
        ]
    }
}

extension OriginConfig: Decodable, Encodable, ConfigReadable {
    static var defaultValue: OriginConfig { OriginConfig() }
    static var fields: [ConfigField<OriginConfig>] {
        [
            .init("workers", \.workers, .integers(1...100_000)),
            .init("serviceSeconds", \.serviceSeconds, .durations(atMost: sampledSecondsMax)),
            .init("queueMax", \.queueMax, .integers(0...10_000_000)),
            .init("sendsValidators", \.sendsValidators),
        ]
    }
}

extension PlaceholderPolicy: Decodable, Encodable, ConfigReadable {
    static var defaultValue: PlaceholderPolicy { PlaceholderPolicy() }
    static var fields: [ConfigField<PlaceholderPolicy>] {
        [
            .init("enabled", \.enabled),
            .init("placeholderBytes", \.placeholderBytes, .integers(1...(1 << 24), saying: "bytes in 1...2^24")),
            .init("onSaveData", \.onSaveData),
            .init("maxEffectiveConnectionType", \.maxEffectiveConnectionType),
        ]
    }
}

extension InfraFault.Kind: Codable {}

extension InfraFault: Codable, ConfigReadable {
    static var defaultValue: InfraFault { InfraFault() }
    static var fields: [ConfigField<InfraFault>] {
        [
            .init("kind", \.kind, required: true),
            .init("startSeconds", \.startSeconds, required: true, .numbers(0...604_800, unit: "seconds")),
            .init("durationSeconds", \.durationSeconds, required: true, .atLeast(0, exclusive: true, saying: "a duration > 0 seconds")),
            .init("pop", \.pop, .integers(0...10_000)),
            .init("region", \.region, .integers(0...10_000)),
            .init("throughputFactor", \.throughputFactor, ConfigRule("a factor in (0, 1]", schema: ["exclusiveMinimum": .integer(0), "maximum": .integer(1)]) {
                $0 > 0 && $0 <= 1
            }),
            .init("failureProbability", \.failureProbability, ConfigRule("a probability in [0, 1)", schema: ["minimum": .integer(0), "exclusiveMaximum": .integer(1)]) {
                $0 >= 0 && $0 < 1
            }),
        ]
    }

    static func relations(_ f: InfraFault) -> [ConfigIssue] {
        if f.kind == .networkDegradation && f.throughputFactor == 1 && f.failureProbability == 0 {
            return [ConfigIssue(key: "throughputFactor", expected: "a degradation: throughputFactor below 1 or failureProbability above 0", found: "1 and 0")]
        }
        return []
    }
}

extension InfraConfig: Decodable, Encodable, ConfigReadable {
    static var defaultValue: InfraConfig { InfraConfig() }
    static var fields: [ConfigField<InfraConfig>] {
        [
            .init("networks", \.networks),
            .init("connectionSetup", \.connectionSetup),
            .init("topology", \.topology),
            .init("edgeCache", \.edgeCache),
            .init("shieldCache", \.shieldCache),
            .init("tiers", \.tiers),
            .init("origin", \.origin),
            .init("purgePropagationSeconds", \.purgePropagationSeconds, .durations(atMost: sampledSecondsMax)),
            .init("warmPropagationSeconds", \.warmPropagationSeconds, .durations(atMost: sampledSecondsMax)),
            .init("cacheKeyIncludesSignedToken", \.cacheKeyIncludesSignedToken),
            .init("placeholder", \.placeholder),
            // faults: written only when set, so scenarios without them encode and hash as before.
            .init("faults", \.faults, unwritten: [], .counts(0...InfraFault.faultsMax, "0…\(InfraFault.faultsMax) faults")),
            // cdnApi: optional, written only when set (scenarios without it encode and hash as before).
            .init("cdnApi", optional: \.cdnApi),
            .init("metricsHorizonSeconds", \.metricsHorizonSeconds,
                  .integers(1...(7 * 86_400), saying: "seconds in 1...604800")),
            .init("requestsInFlightMax", \.requestsInFlightMax, .integers(1...(1 << 26), saying: "an integer in 1...2^26")),
            .init("fetchesInFlightMax", \.fetchesInFlightMax, .integers(1...(1 << 26), saying: "an integer in 1...2^26")),
        ]
    }

    /// Each fault's PoP or region exists.
    static func relations(_ c: InfraConfig) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        let regions = c.topology.effectiveRegions.count
        for (i, f) in c.faults.enumerated() {
            if f.kind == .popOutage && !(0..<c.topology.popCount).contains(f.pop) {
                issues.append(issue([.key("faults"), .index(i), .key("pop")], "a PoP index in 0..<\(c.topology.popCount)", "\(f.pop)"))
            }
            if f.kind == .networkDegradation && !(0..<regions).contains(f.region) {
                issues.append(issue([.key("faults"), .index(i), .key("region")], "a region index in 0..<\(regions)", "\(f.region)"))
            }
        }
        return issues
    }
}

/// Reads a case written as its `description` (one of `spelled`).
private func describedCase<C: CaseIterable & CustomStringConvertible>(_ decoder: any Decoder, spelled: String) throws -> C {
    let s = try decoder.singleValueContainer().decode(String.self)
    guard let v = C.allCases.first(where: { $0.description == s }) else {
        throw ConfigIssue(expected: "one of \(spelled)", found: s)
    }
    return v
}

extension NetworkClass: Decodable, Encodable {
    @usableFromInline package init(from decoder: any Decoder) throws { self = try describedCase(decoder, spelled: "wifi, 5g, lte, 4g, 3g, 2g, slow-2g") }

    @usableFromInline package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

extension EffectiveConnectionType: Decodable, Encodable {
    @usableFromInline package init(from decoder: any Decoder) throws { self = try describedCase(decoder, spelled: "slow-2g, 2g, 3g, 4g") }

    @usableFromInline package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
