import Foundation
import PushModel

// The scenario format of prices (`costs`): optional; without it no money appears anywhere.

extension ConfigRule where Value == Double {
    /// A price: finite and ≥ 0.
    static var price: ConfigRule {
        ConfigRule("a finite price ≥ 0", found: ScenarioKnob.numberText, schema: ["minimum": .integer(0)]) { $0.isFinite && $0 >= 0 }
    }
}

extension CostsConfig: Codable, ConfigReadable {
    static var defaultValue: CostsConfig { CostsConfig() }
    static var fields: [ConfigField<CostsConfig>] {
        [
            .init("currency", \.currency, required: true,
                  ConfigRule("1–8 characters from [A-Za-z$€£¥], e.g. \"USD\"", found: { "\"\($0)\"" },
                             schema: ["minLength": .integer(1), "maxLength": .integer(8)]) { c in
                      (1...8).contains(c.count) && c.allSatisfy { $0.isLetter || "$€£¥".contains($0) }
                  }),
            .init("cdn", \.cdn, .counts(0...64, "0…64 price lists")),
            .init("originPricePerGB", \.originPricePerGB, .price),
            .init("shieldPricePerGB", \.shieldPricePerGB, .price),
            .init("commit", optional: \.commit),
            .init("cellular", \.cellular, .counts(0...64, "0…64 price lists")),
        ]
    }

    static func relations(_ c: CostsConfig) -> [ConfigIssue] {
        groupIssues(c.cdn.map(\.regions), key: "cdn") + groupIssues(c.cellular.map(\.regions), key: "cellular")
    }

    /// At most one list without `regions`, and no region in two lists.
    static func groupIssues(_ groups: [[Int]?], key: String) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        let defaults = groups.indices.filter { groups[$0] == nil }
        if defaults.count > 1 {
            issues.append(issue([.key(key), .index(defaults[1]), .key("regions")],
                                "at most one price list without \"regions\" (it prices every region no other list names)", "absent"))
        }
        var seen: [Int: Int] = [:]
        for (g, regions) in groups.enumerated() {
            for (i, r) in (regions ?? []).enumerated() {
                if let first = seen[r] {
                    issues.append(issue([.key(key), .index(g), .key("regions"), .index(i)],
                                        "a region in one price list only (region \(r) is in \(key)[\(first)] too)", "\(r)"))
                }
                seen[r] = seen[r] ?? g
            }
        }
        return issues
    }

    /// The regions of `costs` checked against the scenario's region count, and that every region
    /// has a price (a list names it, or a list without `regions` exists).
    static func regionIssues(_ costs: CostsConfig, regions: Int) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        for (key, groups) in [("cdn", costs.cdn.map(\.regions)), ("cellular", costs.cellular.map(\.regions))] {
            for (g, list) in groups.enumerated() {
                for (i, r) in (list ?? []).enumerated() where !(0..<regions).contains(r) {
                    issues.append(issue([.key("costs"), .key(key), .index(g), .key("regions"), .index(i)],
                                        "a region of infra.topology.regions, 0..<\(regions)", "\(r)"))
                }
            }
            guard !groups.isEmpty, !groups.contains(where: { $0 == nil }) else { continue }
            let named = Set(groups.compactMap { $0 }.flatMap { $0 })
            if let missing = (0..<regions).first(where: { !named.contains($0) }) {
                issues.append(issue([.key("costs"), .key(key)],
                                    "a price for every region: name region \(missing) in a list, or add a list without \"regions\"",
                                    "\(groups.count) lists naming \(named.count) of \(regions) regions"))
            }
        }
        return issues
    }
}

extension CdnPriceConfig: Codable, ConfigReadable {
    static var defaultValue: CdnPriceConfig { CdnPriceConfig() }
    static var fields: [ConfigField<CdnPriceConfig>] {
        [
            .init("regions", optional: \.regions, ConfigRule<[Int]>.counts(1...100_000, "1…100 000 regions")),
            .init("tiers", \.tiers, required: true, ConfigRule<[PriceTierConfig]>.counts(1...32, "1…32 volume tiers")),
            .init("pricePer10kRequests", \.pricePer10kRequests, .price),
        ]
    }

    static func relations(_ p: CdnPriceConfig) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        if let first = p.tiers.first, first.fromGB != 0 {
            issues.append(issue([.key("tiers"), .index(0), .key("fromGB")], "0 (the first tier starts at the first GB)", ScenarioKnob.numberText(first.fromGB)))
        }
        for i in p.tiers.indices.dropFirst() where !(p.tiers[i].fromGB > p.tiers[i - 1].fromGB) {
            issues.append(issue([.key("tiers"), .index(i), .key("fromGB")],
                                "tiers in ascending order: more than the previous tier's \(ScenarioKnob.numberText(p.tiers[i - 1].fromGB)) GB",
                                ScenarioKnob.numberText(p.tiers[i].fromGB)))
        }
        return issues
    }
}

extension PriceTierConfig: Codable, ConfigReadable {
    static var defaultValue: PriceTierConfig { PriceTierConfig() }
    static var fields: [ConfigField<PriceTierConfig>] {
        [
            .init("fromGB", \.fromGB, required: true,
                  ConfigRule("a finite volume ≥ 0 GB", found: ScenarioKnob.numberText, schema: ["minimum": .integer(0)]) { $0.isFinite && $0 >= 0 }),
            .init("pricePerGB", \.pricePerGB, required: true, .price),
        ]
    }
}

extension CellularPriceConfig: Codable, ConfigReadable {
    static var defaultValue: CellularPriceConfig { CellularPriceConfig() }
    static var fields: [ConfigField<CellularPriceConfig>] {
        [
            .init("regions", optional: \.regions, ConfigRule<[Int]>.counts(1...100_000, "1…100 000 regions")),
            .init("pricePerGB", \.pricePerGB, required: true, .price),
        ]
    }
}

extension CommitConfig: Codable, ConfigReadable {
    static var defaultValue: CommitConfig { CommitConfig() }
    static var fields: [ConfigField<CommitConfig>] {
        [
            .init("tier", \.tier),
            .init("rateGbps", \.rateGbps, required: true,
                  ConfigRule("a finite rate > 0 Gbit/s", found: ScenarioKnob.numberText, schema: ["exclusiveMinimum": .integer(0)]) { $0.isFinite && $0 > 0 }),
            .init("billing", \.billing, required: true),
            .init("price", \.price, .price),
            .init("pricePerGbps", \.pricePerGbps, .price),
            .init("overagePricePerGbps", \.overagePricePerGbps, .price),
            .init("overagePricePerGB", \.overagePricePerGB, .price),
        ]
    }

    static func relations(_ c: CommitConfig) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        if c.billing == .percentile95 && c.overagePricePerGB != 0 {
            issues.append(ConfigIssue(key: "overagePricePerGB", expected: "0 or absent with billing percentile95 (its overage is per Gbit/s: overagePricePerGbps)",
                                      found: ScenarioKnob.numberText(c.overagePricePerGB)))
        }
        if c.billing == .perGB && c.overagePricePerGbps != 0 {
            issues.append(ConfigIssue(key: "overagePricePerGbps", expected: "0 or absent with billing perGB (its overage is per GB: overagePricePerGB)",
                                      found: ScenarioKnob.numberText(c.overagePricePerGbps)))
        }
        return issues
    }
}

extension CommitTierConfig: Codable {}
extension CommitBillingConfig: Codable {}
