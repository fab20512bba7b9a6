/// A `Table` as plain text for a terminal, as CSV, or as a Markdown pipe table (for commands that print
/// tables: `compare`, `sweep`). Pure functions of the table; cells print as in the reports.
package enum TableText {
    /// Columns padded to equal width (numbers right-aligned), separated by two spaces, with a rule under
    /// the header; ends with a newline. Empty for a table without columns.
    /// - Complexity: O(cells).
    package static func plain(_ table: Table) -> String {
        guard !table.columns.isEmpty else { return "" }
        let header = table.columns.map { $0.title }
        let body = table.normalizedRows.map { row in row.map { $0.text } }
        let widths = table.columnWidths(header, body)
        func line(_ cells: [String]) -> String {
            let padded = cells.enumerated().map { index, cell -> String in
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                return table.columns[index].alignment == .trailing ? padding + cell : cell + padding
            }
            var text = padded.joined(separator: "  ")
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + body.map(line)).joined(separator: "\n") + "\n"
    }

    /// RFC 4180 CSV: the header row, then one row per table row; a field holding a comma, a quote or a
    /// line break is quoted with inner quotes doubled. Lines end with "\n", the last one too.
    /// - Complexity: O(cells).
    package static func csv(_ table: Table) -> String {
        guard !table.columns.isEmpty else { return "" }
        let rows = [table.columns.map { $0.title }] + table.normalizedRows.map { row in row.map { $0.text } }
        return rows.map { $0.map(csvField).joined(separator: ",") }.joined(separator: "\n") + "\n"
    }

    /// A Markdown pipe table with aligned columns (as in report.md); ends with a newline.
    package static func markdown(_ table: Table) -> String {
        let lines = MarkdownRenderer.tableLines(table)
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
