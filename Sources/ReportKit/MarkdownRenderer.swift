/// Renders a `Report` as compact Markdown a person can read in a terminal or a pull request: the run's
/// provenance, the headline metrics as one aligned table (metric, value, CI, unit, alarm level, status),
/// and each section's paragraphs and tables. Charts appear as their data tables (a breakdown as counts
/// and shares per outcome). All user text is Markdown-escaped; output is byte-identical for equal input.
package struct MarkdownRenderer: Sendable {
    /// Renderers hold no state; one instance can render any number of reports.
    package init() {}

    /// The report as Markdown, ending with a single newline.
    /// - Complexity: O(size of the report).
    package func render(_ report: Report) -> String {
        var lines: [String] = []
        lines.append("# " + TextFormat.escapeMarkdown(report.title))
        lines.append("")
        lines.append("**Scenario:** " + TextFormat.escapeMarkdown(report.scenario.name) + " — " + TextFormat.escapeMarkdown(report.scenario.question) + "  ")
        let run = report.provenance
        let facts = run.facts.map { TextFormat.escapeMarkdown($0.label.lowercased() + " " + $0.value) }
        lines.append("**Run:** " + (facts + [TextFormat.count(run.replications) + " replications", "seed " + String(run.seed)]).joined(separator: " · ") + "  ")
        if let overrides = run.overrides {
            lines.append("**Overrides:** " + (overrides.isEmpty ? "none (scenario file as written)" : overrides.map(Self.codeSpan).joined(separator: " ")) + "  ")
        }
        lines.append("**Provenance:** " + TextFormat.escapeMarkdown(run.toolVersion)
                     + (run.sourceRevision.isEmpty ? "" : " · source " + Self.codeSpan(run.sourceRevision))
                     + " · scenario " + TextFormat.escapeMarkdown(run.scenarioHash))
        // The headline cards, after the first `leadSectionCount` sections (the verdict).
        func headlineLines() {
            guard !report.headlines.isEmpty else { return }
            lines.append("")
            lines.append("## Headline metrics")
            lines.append("")
            lines += Self.tableLines(Self.headlineTable(report.headlines))
            let lookAt = report.headlines.compactMap { m in m.lookAtLine.map { "- **" + TextFormat.escapeMarkdown(m.name) + "**: " + TextFormat.escapeMarkdown($0) } }
            if !lookAt.isEmpty {
                lines.append("")
                lines += lookAt
            }
            let notes = report.headlines.filter { !$0.note.isEmpty }
            if !notes.isEmpty {
                lines.append("")
                lines += notes.map { "- *" + TextFormat.escapeMarkdown($0.name) + "*: " + TextFormat.escapeMarkdown($0.note) }
            }
        }
        for (index, section) in report.sections.enumerated() {
            if index == report.leadSectionCount { headlineLines() }
            lines.append("")
            lines.append("## " + TextFormat.escapeMarkdown(section.title))
            for block in section.blocks {
                lines.append("")
                switch block {
                case .paragraph(let text):
                    lines.append(TextFormat.escapeMarkdown(text))
                case .table(let table):
                    if !table.caption.isEmpty { lines += ["**" + TextFormat.escapeMarkdown(table.caption) + "**", ""] }
                    lines += Self.tableLines(table)
                case .chart(let chart):
                    lines.append("**Figure: " + TextFormat.escapeMarkdown(chart.title) + "** — " + TextFormat.escapeMarkdown(chart.summary))
                    lines.append("")
                    lines += Self.tableLines(chart.dataTable)
                }
            }
        }
        if report.sections.count <= report.leadSectionCount { headlineLines() }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The headline metrics as a table: Metric | Value | <level> CI | Unit | Alarm | Status. The CI column
    /// is headed by the common level ("95% CI") when all metrics share one, else each cell names its level.
    static func headlineTable(_ metrics: [HeadlineMetric]) -> Table {
        let levels = metrics.map { $0.ciLevel }
        let sharedLevel = levels.allSatisfy { $0 == levels.first } ? levels.first : nil
        let ciTitle = sharedLevel.map { HeadlineMetric.levelText($0) + " CI" } ?? "CI"
        var columns = [Table.Column("Metric"), Table.Column("Value", alignment: .trailing), Table.Column(ciTitle, alignment: .trailing),
                       Table.Column("Unit"), Table.Column("Alarm"), Table.Column("Status")]
        let withIDs = metrics.contains { !$0.id.isEmpty }
        if withIDs { columns.append(Table.Column("ID")) }
        let rows: [[TableCell]] = metrics.map { metric in
            let ci = metric.halfWidthText + (sharedLevel == nil && metric.ciHalfWidth != nil ? " (" + HeadlineMetric.levelText(metric.ciLevel) + ")" : "")
            return [.text(metric.name), .text(metric.valueText), .text(ci), .text(metric.unit), .text(metric.thresholdText),
                    .text(metric.failedObjective.map { "FAIL (objective " + $0 + ")" } ?? metric.thresholdStatus?.label ?? "—")] + (withIDs ? [.code(metric.id)] : [])
        }
        return Table(caption: "", columns: columns, rows: rows)
    }

    /// `text` as an inline code span; backticks, pipes and line breaks (which would end the span or the
    /// table cell) are dropped.
    static func codeSpan(_ text: String) -> String {
        "`" + String(text.unicodeScalars.filter { $0 != "`" && $0 != "|" && $0.value >= 0x20 }.map(Character.init)) + "`"
    }

    /// A pipe table with columns padded to equal width (so it also lines up in a terminal) and alignment
    /// markers in the separator row.
    static func tableLines(_ table: Table) -> [String] {
        guard !table.columns.isEmpty else { return [] }
        let header = table.columns.map { TextFormat.escapeMarkdown($0.title) }
        let body = table.normalizedRows.map { row in row.map { cell -> String in
            if case .code(let text) = cell { return text.isEmpty ? "" : Self.codeSpan(text) }
            return TextFormat.escapeMarkdown(cell.text)
        } }
        let widths = table.columnWidths(header, body, minimum: 3)
        func line(_ cells: [String]) -> String {
            let padded = cells.enumerated().map { index, cell -> String in
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                return table.columns[index].alignment == .trailing ? padding + cell : cell + padding
            }
            return "| " + padded.joined(separator: " | ") + " |"
        }
        let separator = "| " + table.columns.enumerated().map { index, column in
            column.alignment == .trailing ? String(repeating: "-", count: widths[index] - 1) + ":"
                : ":" + String(repeating: "-", count: widths[index] - 1)
        }.joined(separator: " | ") + " |"
        return [line(header), separator] + body.map(line)
    }
}
