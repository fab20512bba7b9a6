/// A simulation run's results, as plain data a person-facing renderer can draw.
///
/// ReportKit knows nothing of the simulator: a later layer maps run results into these values. Every
/// string is treated as untrusted text (scenario names are user input) and escaped by the renderers.
package struct Report: Sendable, Equatable {
    /// The report's heading, e.g. "Flash sale 10 M pushes, warm 10 min ahead".
    package var title: String
    /// Which scenario ran and what question it answers.
    package var scenario: ScenarioSummary
    /// Seed, replications, tool version and scenario hash: what is needed to reproduce the run.
    package var provenance: RunProvenance
    /// The few numbers a reader looks at first, in display order.
    package var headlines: [HeadlineMetric]
    /// The body of the report, in display order.
    package var sections: [ReportSection]
    /// How many of `sections` come before the headline cards: the verdict a reader needs first
    /// (the objectives), then the numbers.
    package var leadSectionCount: Int

    /// Creates the value from its properties (see their documentation).
    package init(title: String, scenario: ScenarioSummary, provenance: RunProvenance,
                headlines: [HeadlineMetric], sections: [ReportSection], leadSectionCount: Int = 0) {
        self.title = title
        self.scenario = scenario
        self.provenance = provenance
        self.headlines = headlines
        self.sections = sections
        self.leadSectionCount = leadSectionCount
    }
}

/// The scenario a report is about.
package struct ScenarioSummary: Sendable, Equatable {
    /// The scenario's name as the user wrote it.
    package var name: String
    /// The one-line question the scenario answers, e.g. "How far ahead must we warm for 95 % instant paints?".
    package var question: String

    /// Creates the value from its properties (see their documentation).
    package init(name: String, question: String) {
        self.name = name
        self.question = question
    }
}

/// What identifies a run: enough to reproduce it byte for byte. No wall-clock date on purpose, so the
/// same run renders to the same bytes.
package struct RunProvenance: Sendable, Equatable {
    /// The master seed every random stream was derived from.
    package var seed: UInt64
    /// Number of independent replications the confidence intervals are computed over.
    package var replications: Int
    /// Version of the tool that produced the results, e.g. "prestage 0.4.0".
    package var toolVersion: String
    /// Content hash of the scenario file, e.g. "sha256:9f2c…".
    package var scenarioHash: String
    /// The source revision the tool was built from (e.g. a git commit); empty when unknown.
    package var sourceRevision: String
    /// What the run simulated, shown first in the header: e.g. ("Devices", "500,000"), ("Horizon", "30 min").
    package var facts: [RunFact]
    /// Every change to the scenario file made for this run, as given (e.g. `--devices 500000`,
    /// `--set world.population.devices=500000`), in order; empty when the file ran as written; nil when
    /// the notion does not apply (a sweep's changes are in its sweep file).
    package var overrides: [String]?

    /// Creates the value from its properties (see their documentation).
    package init(seed: UInt64, replications: Int, toolVersion: String, scenarioHash: String, sourceRevision: String = "",
                facts: [RunFact] = [], overrides: [String]? = []) {
        self.seed = seed
        self.replications = replications
        self.toolVersion = toolVersion
        self.scenarioHash = scenarioHash
        self.sourceRevision = sourceRevision
        self.facts = facts
        self.overrides = overrides
    }
}

/// One labelled fact about a run for the report header, e.g. "Devices" = "500,000".
package struct RunFact: Sendable, Equatable {
    /// The label, e.g. "Devices".
    package var label: String
    /// The value as display text, e.g. "500,000".
    package var value: String

    /// Creates the value from its properties (see their documentation).
    package init(_ label: String, _ value: String) {
        self.label = label
        self.value = value
    }
}

/// One headline number with its confidence interval and, optionally, the alarm level it is gated on.
package struct HeadlineMetric: Sendable, Equatable {
    /// What is measured, e.g. "Extension download p95".
    package var name: String
    /// Unit of `value`, `ciHalfWidth` and the threshold, e.g. "s", "ms", "%", "req/s". May be empty.
    package var unit: String
    /// The point estimate (mean over replications).
    package var value: Double
    /// Digits printed after the decimal point for the value, the half-width and the threshold (clamped to 0...9).
    package var decimals: Int
    /// Half-width of the confidence interval, in `unit`; nil when not available (e.g. one replication).
    package var ciHalfWidth: Double?
    /// Confidence level of the interval as a fraction, e.g. 0.95.
    package var ciLevel: Double
    /// The alarm level this metric is gated on, if any.
    package var threshold: Threshold?
    /// A short remark shown with the metric (how it is measured, a caveat). May be empty.
    package var note: String
    /// The metric's identifier, shown in small print under the name (e.g. "tapToPaint.p50Seconds"); may be empty.
    package var id: String
    /// Set when an objective on this metric failed: the objective, e.g. "origin.rejected503 <= 0
    /// at 95 %" (the card is flagged with it).
    package var failedObjective: String? = nil
    /// What to look at when the alarm level is crossed (or its interval crosses it), e.g. "warm earlier
    /// or warm the PoPs that miss: see the region chart"; shown only then. May be empty.
    package var lookAt: String = ""

    /// The "what to look at" line, when the status calls for it: nil when clear, without an alarm or without a hint.
    package var lookAtLine: String? {
        guard !lookAt.isEmpty, let status = thresholdStatus, status != .clear else { return nil }
        return "What to look at: " + lookAt + "."
    }

    /// Creates the value from its properties (see their documentation).
    package init(name: String, unit: String, value: Double, decimals: Int, ciHalfWidth: Double?,
                ciLevel: Double = 0.95, threshold: Threshold? = nil, note: String = "", id: String = "") {
        self.name = name
        self.unit = unit
        self.value = value
        self.decimals = decimals
        self.ciHalfWidth = ciHalfWidth
        self.ciLevel = ciLevel
        self.threshold = threshold
        self.note = note
        self.id = id
    }

    /// A metric measured in `measured` units, shown in the unit people read best for its value (see
    /// `HumanScale`); the half-width and the alarm level (both in `measured` units) use the same scale.
    /// Example: 0.412 s with ± 0.018 s becomes "412 ms ± 18".
    package init(name: String, id: String, measuredValue: Double, measured: MeasuredUnit, ciHalfWidth: Double?,
                ciLevel: Double = 0.95, threshold: Threshold? = nil, note: String = "") {
        let scale = HumanScale.choose(for: measured, magnitude: measuredValue)
        self.init(name: name, unit: scale.unit, value: measuredValue * scale.multiplier, decimals: scale.decimals,
                  ciHalfWidth: ciHalfWidth.map { $0 * scale.multiplier }, ciLevel: ciLevel,
                  threshold: threshold.map { Threshold(value: $0.value * scale.multiplier, alarmWhen: $0.alarmWhen) },
                  note: note, id: id)
    }

    /// Where the estimate stands against its threshold; nil without a threshold.
    package var thresholdStatus: ThresholdStatus? {
        threshold.map { $0.status(value: value, ciHalfWidth: ciHalfWidth ?? 0) }
    }
}

/// An alarm level, e.g. "extension download p95 alarm 1.2 s" is `Threshold(value: 1.2, alarmWhen: .above)`.
package struct Threshold: Sendable, Equatable {
    /// Which side of the level raises the alarm.
    package enum Direction: Sendable, Equatable {
        /// The alarm fires when the metric exceeds `value` (latencies, error shares).
        case above
        /// The alarm fires when the metric falls short of `value` (hit ratios, instant-paint shares).
        case below
    }

    /// The alarm level, in the metric's unit.
    package var value: Double
    /// Which side of `value` is bad.
    package var alarmWhen: Direction

    /// Creates the value from its properties (see their documentation).
    package init(value: Double, alarmWhen: Direction) {
        self.value = value
        self.alarmWhen = alarmWhen
    }

    /// Compares an estimate and its confidence interval with the level. A value exactly at the level
    /// counts as clear (the alarm is "above"/"below", strictly).
    package func status(value estimate: Double, ciHalfWidth: Double) -> ThresholdStatus {
        guard estimate.isFinite else { return .breached }
        let halfWidth = ciHalfWidth.isFinite ? abs(ciHalfWidth) : 0
        switch alarmWhen {
        case .above:
            if estimate > value { return .breached }
            return estimate + halfWidth > value ? .withinInterval : .clear
        case .below:
            if estimate < value { return .breached }
            return estimate - halfWidth < value ? .withinInterval : .clear
        }
    }
}

/// How an estimate compares with its alarm level.
package enum ThresholdStatus: Sendable, Equatable {
    /// The whole confidence interval is on the good side.
    case clear
    /// The estimate is on the good side but the interval reaches past the level: more replications needed.
    case withinInterval
    /// The estimate itself is past the level (a non-finite estimate counts as breached).
    case breached

    /// Short label for tables: "ok", "CI crosses", "ALARM".
    package var label: String {
        switch self {
        case .clear: return "ok"
        case .withinInterval: return "CI crosses"
        case .breached: return "ALARM"
        }
    }
}

/// A titled part of the report holding paragraphs, tables and charts in order.
package struct ReportSection: Sendable, Equatable {
    /// The section heading.
    package var title: String
    /// The section's content, in display order.
    package var blocks: [ReportBlock]

    /// Creates the value from its properties (see their documentation).
    package init(title: String, blocks: [ReportBlock]) {
        self.title = title
        self.blocks = blocks
    }
}

/// One piece of section content.
package enum ReportBlock: Sendable, Equatable {
    /// A paragraph of plain text (no markup is interpreted).
    case paragraph(String)
    /// A table of values.
    case table(Table)
    /// A chart; both renderers also show its data as a table.
    case chart(Chart)
}

/// A table: a caption, column headings and rows of cells. A row shorter than the header is padded with
/// empty cells; cells beyond the header's width are not shown.
package struct Table: Sendable, Equatable {
    /// One column's heading and alignment.
    package struct Column: Sendable, Equatable {
        /// How cells line up in a column.
        package enum Alignment: Sendable, Equatable { case leading, trailing }
        /// The column heading.
        package var title: String
        /// Numbers read best trailing-aligned.
        package var alignment: Alignment

        /// Creates the value from its properties (see their documentation).
        package init(_ title: String, alignment: Alignment = .leading) {
            self.title = title
            self.alignment = alignment
        }
    }

    /// Shown above the table. May be empty.
    package var caption: String
    /// The column headings, left to right.
    package var columns: [Column]
    /// The body rows, top to bottom.
    package var rows: [[TableCell]]

    /// Creates the value from its properties (see their documentation).
    package init(caption: String, columns: [Column], rows: [[TableCell]]) {
        self.caption = caption
        self.columns = columns
        self.rows = rows
    }

    /// The widest of each column's heading and cells (`cells` as they will be printed), at least `minimum`.
    func columnWidths(_ header: [String], _ body: [[String]], minimum: Int = 0) -> [Int] {
        var widths = header.map { max($0.count, minimum) }
        for row in body {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        return widths
    }

    /// The rows cut or padded to exactly `columns.count` cells each.
    package var normalizedRows: [[TableCell]] {
        rows.map { row in
            let kept = Array(row.prefix(columns.count))
            return kept + Array(repeating: TableCell.empty, count: columns.count - kept.count)
        }
    }
}

/// One table cell. Numbers are formatted by ReportKit (fixed decimals, "." separator, locale-independent).
package enum TableCell: Sendable, Equatable {
    /// Plain text, escaped by the renderers.
    case text(String)
    /// A number printed with exactly `decimals` digits after the point and thousands separators ("1,304.5").
    case number(Double, decimals: Int)
    /// An integer count with thousands separators ("12,345").
    case count(Int)
    /// A fraction in [0, 1] printed as a percentage with `decimals` places ("61.7%").
    case percent(Double, decimals: Int)
    /// A count followed by its share of a total: "12,345 (61.7%)".
    case countAndShare(Int, share: Double)
    /// A measured quantity in the unit people read best for it: "412 ms", "22.6 GB", "23.8 k/s".
    case quantity(Double, MeasuredUnit)
    /// An identifier shown as code (monospace in HTML, a code span in Markdown), e.g. a metric id.
    case code(String)
    /// Nothing (also used to pad short rows).
    case empty

    /// The cell's display text, unescaped.
    package var text: String {
        switch self {
        case .text(let string): return string
        case .number(let value, let decimals): return TextFormat.fixed(value, decimals: decimals)
        case .count(let value): return TextFormat.count(value)
        case .percent(let fraction, let decimals): return TextFormat.percent(fraction: fraction, decimals: decimals)
        case .countAndShare(let value, let share):
            return TextFormat.count(value) + " (" + TextFormat.percent(fraction: share, decimals: 1) + ")"
        case .quantity(let value, let unit): return HumanScale.format(value, unit: unit)
        case .code(let text): return text
        case .empty: return ""
        }
    }
}
