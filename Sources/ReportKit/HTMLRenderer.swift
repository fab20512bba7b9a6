/// Renders a `Report` as one self-contained HTML file: inline CSS and inline SVG charts, no scripts, no
/// fonts, images or styles fetched from anywhere (a Content-Security-Policy of `default-src 'none'` makes
/// the browser refuse any that slipped in). Light theme, single column, usable down to phone widths: every
/// chart is drawn twice, for a wide and a narrow column (`ChartLayout`), and CSS shows the one that fits,
/// so chart text stays at least 11 px; below 600 px each table row is stacked, every value labelled with
/// its column title, so no value column hides behind a sideways scroll, and the page never scrolls
/// sideways. Every chart also has its data table in a `<details>` element (open for breakdowns, whose
/// counts matter as much as the picture). All user text is HTML-escaped; output is byte-identical for equal input (no
/// dates, no random ids: chart ids are `chart-<n>` in document order).
package struct HTMLRenderer: Sendable {
    /// Renderers hold no state; one instance can render any number of reports.
    package init() {}

    /// The complete HTML document, ending with a newline.
    /// - Complexity: O(size of the report, including every chart point).
    package func render(_ report: Report) -> String {
        var html = ""
        html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        html += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
        html += "<title>" + esc(report.title) + " — " + esc(report.scenario.name) + "</title>\n"
        html += "<style>\n" + Self.stylesheet + "</style>\n</head>\n<body>\n<main>\n"
        html += header(report)
        var chartNumber = 0
        for (sectionIndex, section) in report.sections.enumerated() {
            if sectionIndex == report.leadSectionCount { html += headlines(report.headlines) }
            let headingID = "section-" + String(sectionIndex + 1)
            html += "<section class=\"report-section\" aria-labelledby=\"" + headingID + "\">\n"
            html += "<h2 id=\"" + headingID + "\">" + esc(section.title) + "</h2>\n"
            for block in section.blocks {
                switch block {
                case .paragraph(let text):
                    html += "<p>" + esc(text) + "</p>\n"
                case .table(let table):
                    html += tableHTML(table, withCaption: true)
                case .chart(let chart):
                    chartNumber += 1
                    html += figure(chart, id: "chart-" + String(chartNumber))
                }
            }
            html += "</section>\n"
        }
        if report.sections.count <= report.leadSectionCount { html += headlines(report.headlines) }
        let run = report.provenance
        html += "<footer>Rendered by ReportKit for " + esc(run.toolVersion) + (run.sourceRevision.isEmpty ? "" : " (" + esc(run.sourceRevision) + ")")
            + " · scenario " + esc(run.scenarioHash)
            + " · seed " + String(run.seed) + ". This file is self-contained: no scripts and no external resources.</footer>\n"
        html += "</main>\n</body>\n</html>\n"
        return html
    }

    private func esc(_ text: String) -> String { TextFormat.escapeXML(text) }

    private func header(_ report: Report) -> String {
        let run = report.provenance
        var html = "<header class=\"report-header\">\n<p class=\"kicker\">Prestage simulation report</p>\n"
        html += "<h1>" + esc(report.title) + "</h1>\n"
        html += "<p class=\"question\"><span class=\"scenario-name\">" + esc(report.scenario.name) + "</span> "
            + esc(report.scenario.question) + "</p>\n"
        html += "<dl class=\"provenance\">\n"
        var items: [(String, String)] = run.facts.map { (esc($0.label), esc($0.value)) }
        items += [("Replications", esc(TextFormat.count(run.replications))), ("Seed", "<code>" + String(run.seed) + "</code>")]
        if let overrides = run.overrides {
            items.append(("Overrides", overrides.isEmpty ? "none (scenario file as written)"
                : overrides.map { "<code>" + esc($0) + "</code>" }.joined(separator: " ")))
        }
        items.append(("Tool version", esc(run.toolVersion)))
        if !run.sourceRevision.isEmpty { items.append(("Source revision", "<code>" + esc(run.sourceRevision) + "</code>")) }
        items.append(("Scenario hash", "<code>" + esc(run.scenarioHash) + "</code>"))
        for (term, definition) in items {
            html += "<div><dt>" + term + "</dt><dd>" + definition + "</dd></div>\n"
        }
        html += "</dl>\n</header>\n"
        return html
    }

    private func headlines(_ metrics: [HeadlineMetric]) -> String {
        guard !metrics.isEmpty else { return "" }
        var html = "<section class=\"headlines\" aria-labelledby=\"headlines\">\n<h2 id=\"headlines\">Headline metrics</h2>\n<div class=\"cards\">\n"
        for metric in metrics {
            let status = metric.thresholdStatus
            var statusClass: String
            switch status {
            case .none: statusClass = ""
            case .clear?: statusClass = " clear"
            case .withinInterval?: statusClass = " within"
            case .breached?: statusClass = " breached"
            }
            if metric.failedObjective != nil { statusClass = " breached" }
            html += "<article class=\"metric" + statusClass + "\">\n"
            html += "<h3>" + esc(metric.name) + "</h3>\n"
            if !metric.id.isEmpty {
                // Break opportunities after the dots only, so an id never splits mid-word.
                html += "<p class=\"metric-id\"><code>" + esc(metric.id).replacingOccurrences(of: ".", with: ".<wbr>") + "</code></p>\n"
            }
            html += "<p class=\"value\">" + esc(metric.valueText)
                + (metric.unit.isEmpty ? "" : " <span class=\"unit\">" + esc(metric.unit) + "</span>") + "</p>\n"
            if metric.ciHalfWidth != nil {
                html += "<p class=\"ci\">" + esc(metric.halfWidthText + (metric.unit.isEmpty ? "" : " " + metric.unit))
                    + " <span class=\"level\">(" + esc(metric.ciLevelText) + ")</span></p>\n"
            } else {
                html += "<p class=\"ci\">no confidence interval</p>\n"
            }
            if let status {
                html += "<p class=\"threshold\"><span class=\"badge" + statusClass + "\">" + esc(status.label) + "</span>alarm "
                    + esc(metric.thresholdText) + "</p>\n"
            }
            if let objective = metric.failedObjective {
                html += "<p class=\"threshold\"><span class=\"badge breached\">FAIL</span>objective " + esc(objective) + "</p>\n"
            }
            if let line = metric.lookAtLine { html += "<p class=\"look-at\">" + esc(line) + "</p>\n" }
            if !metric.note.isEmpty { html += "<p class=\"note\">" + esc(metric.note) + "</p>\n" }
            html += "</article>\n"
        }
        html += "</div>\n</section>\n"
        return html
    }

    private func figure(_ chart: Chart, id: String) -> String {
        var html = "<figure class=\"chart-figure\" aria-labelledby=\"" + id + "-caption\">\n"
        html += "<figcaption id=\"" + id + "-caption\"><strong>" + esc(chart.title) + "</strong><span>" + esc(chart.summary) + "</span></figcaption>\n"
        html += "<div class=\"chart-box wide\">\n" + SVGChartRenderer(layout: .wide).render(chart, idPrefix: id) + "</div>\n"
        html += "<div class=\"chart-box narrow\">\n" + SVGChartRenderer(layout: .narrow).render(chart, idPrefix: id + "-narrow") + "</div>\n"
        // A breakdown's counts are part of its message, so its table starts open; other charts' tables start closed.
        let isBreakdown: Bool
        if case .breakdown = chart { isBreakdown = true } else { isBreakdown = false }
        html += (isBreakdown ? "<details open>" : "<details>") + "<summary>Data table</summary>\n"
            + tableHTML(chart.dataTable, withCaption: false) + "</details>\n"
        html += "</figure>\n"
        return html
    }

    private func tableHTML(_ table: Table, withCaption: Bool) -> String {
        var html = "<div class=\"table-wrap\"><table>\n"
        if withCaption && !table.caption.isEmpty { html += "<caption>" + esc(table.caption) + "</caption>\n" }
        html += "<thead><tr>"
        for column in table.columns {
            html += (column.alignment == .trailing ? "<th scope=\"col\" class=\"num\">" : "<th scope=\"col\">") + esc(column.title) + "</th>"
        }
        html += "</tr></thead>\n<tbody>\n"
        for row in table.normalizedRows {
            html += "<tr>"
            for (index, cell) in row.enumerated() {
                let text: String
                if case .code(let code) = cell { text = "<code>" + esc(code).replacingOccurrences(of: ".", with: ".<wbr>") + "</code>" } else { text = esc(cell.text) }
                // The column title rides on each cell: at phone width a row is stacked and each value is labelled.
                let label = " data-label=\"" + esc(table.columns[index].title) + "\""
                html += (table.columns[index].alignment == .trailing ? "<td class=\"num\"" + label + ">" : "<td" + label + ">") + text + "</td>"
            }
            html += "</tr>\n"
        }
        html += "</tbody>\n</table></div>\n"
        return html
    }

    /// The page's whole stylesheet (inline; no web fonts).
    static let stylesheet = """
        :root { color-scheme: light; --ink: #1f2328; --muted: #57606a; --line: #d0d7de; --panel: #f6f8fa;
          --accent: #0072b2; --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; }
        * { box-sizing: border-box; }
        body { margin: 0; background: #ffffff; color: var(--ink);
          font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Liberation Sans", sans-serif; }
        main { max-width: 1000px; margin: 0 auto; padding: 32px 24px 48px; overflow-wrap: break-word; }
        h1 { font-size: 1.8rem; line-height: 1.25; margin: 0.2rem 0 0.5rem; overflow-wrap: break-word; }
        h2 { font-size: 1.25rem; margin: 2.4rem 0 1rem; padding-bottom: 0.35rem; border-bottom: 1px solid var(--line); overflow-wrap: break-word; }
        p { max-width: 72ch; overflow-wrap: break-word; }
        code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.85em; }
        .kicker { margin: 0; text-transform: uppercase; letter-spacing: 0.08em; font-size: 0.75rem; font-weight: 600; color: var(--accent); }
        .question { margin: 0 0 1rem; color: var(--muted); font-size: 1.05rem; }
        .scenario-name { font-weight: 600; color: var(--ink); background: var(--panel); border: 1px solid var(--line);
          border-radius: 6px; padding: 0 0.4rem; margin-right: 0.3rem; }
        dl.provenance { display: flex; flex-wrap: wrap; gap: 0.5rem 2rem; margin: 0; padding: 0.75rem 1rem;
          background: var(--panel); border: 1px solid var(--line); border-radius: 8px; font-size: 0.875rem; }
        dl.provenance div { min-width: 0; max-width: 100%; }
        dt { color: var(--muted); font-size: 0.7rem; text-transform: uppercase; letter-spacing: 0.05em; }
        dd { margin: 0; overflow-wrap: break-word; }
        .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(175px, 1fr)); gap: 12px; }
        .metric { border: 1px solid var(--line); border-top: 4px solid var(--accent); border-radius: 8px; padding: 0.7rem 0.9rem; }
        .metric.clear { border-top-color: var(--ok); }
        .metric.within { border-top-color: var(--warn); }
        .metric.breached { border-top-color: var(--bad); }
        .metric h3 { margin: 0; font-size: 0.9rem; font-weight: 600; color: var(--ink); overflow-wrap: break-word; hyphens: manual; }
        .metric .metric-id { margin: 0.05rem 0 0; font-size: 0.7rem; color: var(--muted); overflow-wrap: break-word; }
        .metric .metric-id code { font-size: 1em; }
        .metric .value { margin: 0.15rem 0 0; font-size: 1.65rem; font-weight: 650; font-variant-numeric: tabular-nums; }
        .metric .unit { font-size: 1rem; font-weight: 500; color: var(--muted); }
        .metric .ci, .metric .threshold, .metric .note { margin: 0.15rem 0 0; font-size: 0.8rem; color: var(--muted); }
        .metric .look-at { margin: 0.3rem 0 0; font-size: 0.85rem; font-weight: 600; color: var(--ink); }
        .badge { display: inline-block; font-size: 0.7rem; font-weight: 700; letter-spacing: 0.03em; padding: 0 0.45rem;
          border-radius: 999px; margin-right: 0.4rem; }
        .badge.clear { background: #dafbe1; color: #116329; }
        .badge.within { background: #fff8c5; color: #7d4e00; }
        .badge.breached { background: #ffebe9; color: #a40e26; }
        figure { margin: 1.25rem 0 2rem; padding: 1rem 1rem 0.75rem; border: 1px solid var(--line); border-radius: 10px; }
        figcaption { margin-bottom: 0.5rem; }
        figcaption strong { display: block; font-size: 1rem; }
        figcaption span { color: var(--muted); font-size: 0.875rem; }
        .chart-box.narrow { display: none; }
        svg.chart { display: block; width: 100%; max-width: 100%; height: auto; }
        .chart-box.narrow svg.chart { max-width: 520px; margin: 0 auto; }
        @media (max-width: 859px) { .chart-box.wide { display: none; } .chart-box.narrow { display: block; } }
        details { margin-top: 0.5rem; font-size: 0.875rem; }
        summary { cursor: pointer; color: var(--accent); }
        .table-wrap { overflow-x: auto; max-width: 100%; }
        table { border-collapse: collapse; font-size: 0.875rem; font-variant-numeric: tabular-nums; margin: 0.5rem 0 1rem; }
        caption { text-align: left; font-weight: 600; padding-bottom: 0.35rem; }
        th, td { padding: 0.35rem 0.75rem; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
        th { background: var(--panel); font-weight: 600; }
        th.num, td.num { text-align: right; white-space: nowrap; }
        footer { margin-top: 3rem; padding-top: 1rem; border-top: 1px solid var(--line); color: var(--muted); font-size: 0.8rem; }
        @media (max-width: 600px) { main { padding: 20px 12px 32px; } h1 { font-size: 1.4rem; } figure { padding: 0.6rem 0.5rem; }
          th, td { padding: 0.3rem 0.5rem; }
          .table-wrap table, .table-wrap tbody, .table-wrap tr, .table-wrap caption { display: block; }
          .table-wrap thead { display: none; }
          .table-wrap tr { padding: 0.35rem 0; border-bottom: 1px solid var(--line); }
          .table-wrap td { display: inline-block; border: 0; padding: 0.05rem 1rem 0.05rem 0; text-align: left; white-space: normal; }
          .table-wrap td:first-child { display: block; font-weight: 600; }
          .table-wrap td:not(:first-child)::before { content: attr(data-label) " "; color: var(--muted); } }

        """
}
