import Foundation
import PushModel
import ReportKit
import ScenarioFormat

// The report's money view (with `costs`) and users' data (always).

/// The cost table of summary.json (present only with `costs`): the run's and each campaign's
/// mean cost per replication, by part, in `currency` (the per-replication values and intervals
/// are the `cost.*` metrics).
package struct CostTable: Codable, Sendable, Equatable {
    package struct Row: Codable, Sendable, Equatable {
        /// "run", or a campaign's name.
        package var scope: String
        package var total: Double?
        package var totalLower: Double?
        package var totalUpper: Double?
        package var prestage: Double?
        package var foreground: Double?
        package var warm: Double?
        package var fill: Double?
        package var neverOpened: Double?
        package var usersCellular: Double?
    }

    package var currency: String
    /// Bytes per GB in every price (10⁹).
    package var bytesPerGB: Double
    package var rows: [Row]

    /// The table of `aggregate`'s cost metrics; nil without `costs`.
    package init?(scenario: ScenarioFile, aggregate: RunAggregate) {
        guard let costs = scenario.world.costs else { return nil }
        func metric(_ name: String) -> MetricSummary? { aggregate.metrics.first { $0.name == name } }
        func row(_ scope: String, _ name: (MetricTable.CampaignCostPart) -> String) -> Row {
            let total = metric(name(.total))
            return Row(scope: scope, total: total?.mean, totalLower: total?.confidenceInterval?.lower, totalUpper: total?.confidenceInterval?.upper,
                       prestage: metric(name(.prestage))?.mean, foreground: metric(name(.foreground))?.mean, warm: metric(name(.warm))?.mean,
                       fill: metric(name(.fill))?.mean, neverOpened: metric(name(.neverOpened))?.mean,
                       usersCellular: metric(name(.usersCellular))?.mean)
        }
        currency = costs.currency
        bytesPerGB = CostsConfig.bytesPerGB
        rows = [row("run") { "cost.\($0 == .usersCellular ? "usersCellular" : $0.rawValue)" }]
            + scenario.world.campaigns.map { c in row(c.name) { MetricTable.campaignCost(c.name, $0).name } }
    }
}

extension ReportBuilder {
    /// Regions listed in the users' data table (the ones with the most pushes).
    static let userDataRegionsShown = 10

    /// "Cost": the run's and each campaign's cost by part, with the interval of the total; nil without `costs`.
    static func costSection(scenario: ScenarioFile, aggregate: RunAggregate) -> ReportSection? {
        guard let costs = scenario.world.costs, let table = CostTable(scenario: scenario, aggregate: aggregate) else { return nil }
        let level = Int((scenario.run.confidenceLevel * 100).rounded())
        func money(_ v: Double?) -> TableCell { v.map { .text(TextNumber.format($0, significant: 4)) } ?? .empty }
        let rows: [[TableCell]] = table.rows.map { r in
            let ci = r.totalLower.flatMap { lo in r.totalUpper.map { hi in " (" + TextNumber.format(lo, significant: 4) + " – " + TextNumber.format(hi, significant: 4) + ")" } }
            let total = r.total.map { TableCell.text(TextNumber.format($0, significant: 4) + (ci ?? "")) } ?? .empty
            let share = (r.total ?? 0) > 0 ? r.neverOpened.map { " (" + TextFormat.percent(fraction: $0 / (r.total ?? 1), decimals: 1) + ")" } ?? "" : ""
            return [.text(r.scope == "run" ? "Run" : "Campaign " + r.scope), total, money(r.prestage), money(r.foreground), money(r.warm), money(r.fill),
                    r.neverOpened.map { .text(TextNumber.format($0, significant: 4) + share) } ?? .empty]
        }
        let columns = [Table.Column("Scope"), Table.Column("Total, \(costs.currency) (\(level) % CI)", alignment: .trailing),
                       Table.Column("Pre-stage", alignment: .trailing), Table.Column("Foreground", alignment: .trailing),
                       Table.Column("Warm", alignment: .trailing), Table.Column("Cache fill", alignment: .trailing),
                       Table.Column("Never opened (share)", alignment: .trailing)]
        var blocks: [ReportBlock] = []
        if !costs.cellular.isEmpty {
            blocks.append(.table(Table(caption: "What users pay their carriers for cellular data, \(costs.currency) (cost.usersCellular; not in the total)",
                                       columns: [Table.Column("Scope"), Table.Column("Users' cellular", alignment: .trailing)],
                                       rows: table.rows.map { [.text($0.scope == "run" ? "Run" : "Campaign " + $0.scope), money($0.usersCellular)] })))
        }
        var text = "Mean per replication in \(costs.currency); the run is one billing period; GB = 10⁹ bytes. Pre-stage and foreground: the CDN's tiered price per GB by region group on the bytes devices received, its price per 10 000 edge requests"
        if let commit = costs.commit {
            let commitMean = aggregate.metrics.first { $0.name == MetricID.costCommit.rawValue }?.mean ?? 0
            text += ", and the \(commit.tier.rawValue) commit (\(TextNumber.format(commit.rateGbps, significant: 4)) Gbit/s, \(commit.billing.rawValue); fee and overage \(TextNumber.format(commitMean, significant: 4)) \(costs.currency)) shared by bytes"
        }
        text += ". Warm and cache fill: origin and shield egress for warm calls and for misses. Never opened is part of pre-stage. Users' cellular is what users pay their carriers, not part of the total. The cost of a change (one more minute of warm-ahead, one more asset) is prestage compare of the two runs' results."
        return ReportSection(title: "Cost", blocks: [
            .paragraph(text),
            .table(Table(caption: "Cost of the run and of each campaign (cost.* metrics)", columns: columns, rows: rows)),
        ] + blocks)
    }

    /// "Users' data": MB per push by network class and by region, opened and never opened.
    static func userDataSection(scenario: ScenarioFile, aggregate: RunAggregate, results: [ReplicationResult]) -> ReportSection {
        func mb(_ v: Double?) -> TableCell { v.map { .quantity($0, .bytes) } ?? .empty }
        func metric(_ name: String) -> Double? { aggregate.metrics.first { $0.name == name }?.mean }
        var classRows: [[TableCell]] = []
        for network in MetricTable.networkNames {
            let opened = metric(MetricTable.userData(network: network, opened: true).name)
            let never = metric(MetricTable.userData(network: network, opened: false).name)
            if opened == nil && never == nil { continue }
            classRows.append([.code(network), mb(opened), mb(metric(MetricTable.userDataP95(network: network, opened: true).name)),
                              mb(never), mb(metric(MetricTable.userDataP95(network: network, opened: false).name))])
        }
        classRows.append([.text("cellular (every class but wifi)"), mb(metric(MetricID.userDataCellularOpenedMeanBytes.rawValue)),
                          mb(metric(MetricID.userDataCellularOpenedP95Bytes.rawValue)),
                          mb(metric(MetricID.userDataCellularNeverOpenedMeanBytes.rawValue)),
                          mb(metric(MetricID.userDataCellularNeverOpenedP95Bytes.rawValue))])
        classRows.append([.text("all"), mb(metric(MetricID.userDataOpenedMeanBytes.rawValue)), mb(metric(MetricID.userDataOpenedP95Bytes.rawValue)),
                          mb(metric(MetricID.userDataNeverOpenedMeanBytes.rawValue)), mb(metric(MetricID.userDataNeverOpenedP95Bytes.rawValue))])
        let columns = [Table.Column("Network"), Table.Column("Opened push", alignment: .trailing), Table.Column("Opened, p95", alignment: .trailing),
                       Table.Column("Never-opened push", alignment: .trailing), Table.Column("Never-opened, p95", alignment: .trailing)]
        // Per region, pooled over replications: Σ bytes ÷ Σ pushes.
        var pushes: [Int: (opened: UInt64, never: UInt64)] = [:]
        var bytes: [Int: (opened: UInt64, never: UInt64)] = [:]
        for r in results {
            guard let a = r.attribution else { continue }
            for region in 0..<a.regions {
                let inRegion: (Int, Int) -> Bool = { rr, _ in rr == region }
                let po = a.pushes(opened: true, where: inRegion), pn = a.pushes(opened: false, where: inRegion)
                guard po + pn > 0 else { continue }
                pushes[region, default: (0, 0)].opened += po
                pushes[region, default: (0, 0)].never += pn
                bytes[region, default: (0, 0)].opened += a.userBytes(opened: true, where: inRegion)
                bytes[region, default: (0, 0)].never += a.userBytes(opened: false, where: inRegion)
            }
        }
        // Per region p95: the mean over the replications that sampled a push of the kind.
        var p95Sums: [Int: (opened: Double, openedN: Int, never: Double, neverN: Int)] = [:]
        for r in results {
            for u in r.userDataRegions ?? [] {
                var e = p95Sums[u.region] ?? (0, 0, 0, 0)
                if let v = u.openedP95Bytes { e.opened += v; e.openedN += 1 }
                if let v = u.neverOpenedP95Bytes { e.never += v; e.neverN += 1 }
                p95Sums[u.region] = e
            }
        }
        let regions = pushes.keys.sorted { (pushes[$0].map { $0.opened + $0.never } ?? 0, $1) > (pushes[$1].map { $0.opened + $0.never } ?? 0, $0) }
        let shown = regions.prefix(userDataRegionsShown).sorted()
        let names = TopologyNames(popNames: scenario.world.infra.topology.popNames, regionNames: scenario.world.infra.topology.regionNames)
        let regionRows: [[TableCell]] = shown.map { region in
            let p = pushes[region] ?? (0, 0), b = bytes[region] ?? (0, 0)
            let q = p95Sums[region]
            return [.text(names.region(region)), .count(Int(clamping: p.opened + p.never)),
                    mb(p.opened > 0 ? Double(b.opened) / Double(p.opened) : nil), mb(q.flatMap { $0.openedN > 0 ? $0.opened / Double($0.openedN) : nil }),
                    mb(p.never > 0 ? Double(b.never) / Double(p.never) : nil), mb(q.flatMap { $0.neverN > 0 ? $0.never / Double($0.neverN) : nil })]
        }
        let regionCaption = regions.count > shown.count
            ? "Data per push by region, the \(shown.count) of \(regions.count) regions with the most pushes (pooled over replications)"
            : "Data per push by region (pooled over replications)"
        return ReportSection(title: "Users' data", blocks: [
            .paragraph("Bytes a device received per push that reached a handler (userData.* metrics): opened pushes count their pre-stage and foreground bytes, never-opened pushes their pre-stage bytes. By class: bytes received on the class per push to devices of that class. Means over replications; by region, the means pooled over replications (Σ bytes ÷ Σ pushes) and the p95s a mean over replications. The p95 columns: the 95th percentile over pushes of one push's bytes (all its classes, devices grouped by their own class; a systematic sample of devices past 262 144 device-campaign cells), mean over replications."),
            .table(Table(caption: "Data per push by network class", columns: columns, rows: classRows)),
            .table(Table(caption: regionCaption, columns: [Table.Column("Region"), Table.Column("Pushes reached", alignment: .trailing),
                                                           Table.Column("Opened push", alignment: .trailing), Table.Column("Opened, p95", alignment: .trailing),
                                                           Table.Column("Never-opened push", alignment: .trailing), Table.Column("Never-opened, p95", alignment: .trailing)],
                         rows: regionRows)),
        ])
    }
}
