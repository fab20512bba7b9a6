import Foundation

/// Renders a `Chart` as a self-contained inline SVG: no scripts, no external references, fixed palette,
/// `role="img"` with `<title>`/`<desc>` for assistive technology, and a byte-identical result for the same
/// input. The chart kinds live in `SVGChartRenderer+Lines.swift` and `SVGChartRenderer+Bars.swift`; this
/// file holds the pieces they share (axes, grid, markers, reference lines, legend, layout).
///
/// Element classes let tests and stylesheets find the data marks: one `path.series` per drawn line,
/// one `path.area` per area-style time series, one `rect.band` per time band, one `line.marker` per marker,
/// one `line.reference` per reference line, one `path.ci-band` per line-chart series with intervals,
/// one `rect.segment` per non-zero breakdown count, one `rect.bar` per finite grouped-bar value, and one
/// `rect.plot` (invisible) per plotting area.
package struct SVGChartRenderer: Sendable {
    /// Width of a wide chart's view box, in SVG user units (the HTML page scales it to the column width).
    package static let width = ChartLayout.wide.width
    /// Height of the plotting area of wide line and bar charts, in SVG user units.
    package static let plotHeight = ChartLayout.wide.plotHeight

    /// The geometry charts are drawn for.
    package let layout: ChartLayout

    /// A renderer for `layout`; it holds no other state and can render any number of charts.
    package init(layout: ChartLayout = .wide) {
        self.layout = layout
    }

    /// The chart as an `<svg>` element (one line per element, ending with a newline).
    ///
    /// - Parameter idPrefix: prefix of the element ids the `aria-labelledby` attribute points at; must be
    ///   unique within an HTML page. Characters other than ASCII letters, digits, `-` and `_` are replaced by `-`.
    /// - Complexity: O(total number of points + categories × bars).
    package func render(_ chart: Chart, idPrefix: String) -> String {
        let prefix = Self.sanitizedID(idPrefix)
        switch chart {
        case .cdf(let cdf): return renderCDF(cdf, prefix: prefix)
        case .timeSeries(let series): return renderTimeSeries(series, prefix: prefix)
        case .breakdown(let breakdown): return renderBreakdown(breakdown, prefix: prefix)
        case .groupedBars(let bars): return renderGroupedBars(bars, prefix: prefix)
        case .line(let line): return renderLineChart(line, prefix: prefix)
        }
    }

    // MARK: Layout constants

    static let legendTop = 10.0
    static let legendRowHeight = 20.0
    static let markerLabelRowHeight = 15.0
    static let marginBottom = 58.0
    static let fontFamily = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Liberation Sans', sans-serif"
    static let inkColor = "#1F2328"
    static let mutedInkColor = "#57606A"
    static let axisColor = "#8C959F"
    static let gridColor = "#E4E7EB"
    /// Neutral (not a palette hue), so a shaded interval never reads as a series.
    static let bandColor = "#6E7781"

    /// A point in SVG user units.
    struct Vertex: Equatable {
        let x: Double
        let y: Double
    }

    /// Most vertices drawn for one line; longer lines are thinned by `thinned`.
    package static let verticesPerLineMax = 4_000

    /// A line with at most `verticesPerLineMax` vertices: a longer one keeps, for each pixel column it
    /// crosses, only its first, lowest, highest and last vertex in their original order, so spikes and dips
    /// survive while the file stays small (a plot is ~650 columns wide: at most ~2,600 vertices).
    /// - Complexity: O(n).
    static func thinned(_ vertices: [Vertex]) -> [Vertex] {
        guard vertices.count > verticesPerLineMax else { return vertices }
        var kept: [Vertex] = []
        var start = 0
        while start < vertices.count {
            let column = vertices[start].x.rounded(.down)
            var end = start
            var lowest = start, highest = start
            while end + 1 < vertices.count && vertices[end + 1].x.rounded(.down) == column {
                end += 1
                if vertices[end].y < vertices[lowest].y { lowest = end }
                if vertices[end].y > vertices[highest].y { highest = end }
            }
            var previous = -1
            for index in [start, lowest, highest, end].sorted() where index != previous {
                kept.append(vertices[index])
                previous = index
            }
            start = end + 1
        }
        return kept
    }

    /// SVG path data: each run starts with M, continues with L.
    static func pathData(_ runs: [[Vertex]]) -> String {
        var path = ""
        for run in runs {
            for (index, vertex) in run.enumerated() {
                path += (path.isEmpty ? "" : " ") + (index == 0 ? "M" : "L") + SVGWriter.number(vertex.x) + " " + SVGWriter.number(vertex.y)
            }
        }
        return path
    }

    /// Splits a series into runs of consecutive finite points (a non-finite point is a gap).
    static func finiteRuns(_ points: [TimePoint]) -> [[TimePoint]] {
        var runs: [[TimePoint]] = []
        var current: [TimePoint] = []
        for point in points {
            if point.seconds.isFinite && point.value.isFinite {
                current.append(point)
            } else if !current.isEmpty {
                runs.append(current)
                current = []
            }
        }
        if !current.isEmpty { runs.append(current) }
        return runs
    }

    // MARK: Shared pieces

    static let halo: [(String, String)] = [("stroke", "#FFFFFF"), ("stroke-width", "3"), ("paint-order", "stroke")]

    func openSVG(_ svg: inout SVGWriter, kind: String, prefix: String, height: Double, title: String, description: String) {
        svg.open("svg", [("xmlns", "http://www.w3.org/2000/svg"), ("class", "chart chart-" + kind),
                         ("viewBox", "0 0 " + SVGWriter.number(layout.width) + " " + SVGWriter.number(height)),
                         ("width", SVGWriter.number(layout.width)), ("height", SVGWriter.number(height)),
                         ("role", "img"), ("aria-labelledby", prefix + "-title " + prefix + "-desc"),
                         ("font-family", Self.fontFamily), ("font-size", "12")])
        svg.newline()
        svg.element("title", [("id", prefix + "-title")], content: title)
        svg.element("desc", [("id", prefix + "-desc")], content: description)
    }

    /// A line chart's description for screen readers: `summary`, then the names of its series.
    static func described(_ summary: String, series names: [String]) -> String {
        let joined = names.joined(separator: "; ")
        return joined.isEmpty ? summary : summary + " Series: " + joined + "."
    }

    /// The axes of an x/y chart (ticks, labels, titles; y labels by `yLabel`), then the plot
    /// area's frame, over the grid and whatever the chart drew between.
    func drawAxes(_ svg: inout SVGWriter, frame: PlotFrame, x: AxisMap, xTitle: String, y: AxisMap, yTitle: String,
                  yLabel: (Double) -> String) {
        drawXAxis(&svg, frame: frame, map: x, title: xTitle)
        drawYAxis(&svg, frame: frame, map: y, title: yTitle, label: yLabel)
        drawPlotArea(&svg, frame: frame)
    }

    /// Light lines at every tick of both axes, behind the data.
    func drawGrid(_ svg: inout SVGWriter, frame: PlotFrame, x: AxisMap, y: AxisMap) {
        svg.open("g", [("class", "grid"), ("stroke", Self.gridColor), ("stroke-width", "1")])
        for tick in y.ticks.values {
            let position = SVGWriter.number(y.position(tick))
            svg.leaf("line", [("x1", SVGWriter.number(frame.left)), ("y1", position), ("x2", SVGWriter.number(frame.right)), ("y2", position)])
        }
        for tick in x.ticks.values {
            let position = SVGWriter.number(x.position(tick))
            svg.leaf("line", [("x1", position), ("y1", SVGWriter.number(frame.top)), ("x2", position), ("y2", SVGWriter.number(frame.bottom))])
        }
        svg.close("g")
    }

    func drawXAxis(_ svg: inout SVGWriter, frame: PlotFrame, map: AxisMap, title: String) {
        svg.open("g", [("class", "axis x"), ("fill", Self.mutedInkColor), ("text-anchor", "middle")])
        svg.leaf("line", [("x1", SVGWriter.number(frame.left)), ("y1", SVGWriter.number(frame.bottom)),
                          ("x2", SVGWriter.number(frame.right)), ("y2", SVGWriter.number(frame.bottom)), ("stroke", Self.axisColor)])
        // Every tick gets its line; a label that would touch the previous one (a narrow log axis) is left out.
        var labelEnd = -Double.infinity
        for tick in map.ticks.values {
            let x = map.position(tick)
            let position = SVGWriter.number(x)
            svg.leaf("line", [("x1", position), ("y1", SVGWriter.number(frame.bottom)), ("x2", position),
                              ("y2", SVGWriter.number(frame.bottom + 5)), ("stroke", Self.axisColor)])
            let label = Self.tickLabel(tick, decimals: map.ticks.decimals)
            let halfWidth = Self.textWidth(label, fontSize: 12) / 2
            guard x - halfWidth > labelEnd + 4 else { continue }
            labelEnd = x + halfWidth
            svg.element("text", [("x", position), ("y", SVGWriter.number(frame.bottom + 20))], content: label)
        }
        svg.element("text", [("x", SVGWriter.number(frame.left + frame.width / 2)), ("y", SVGWriter.number(frame.bottom + 44)),
                             ("fill", Self.inkColor)], content: title)
        svg.close("g")
    }

    func drawYAxis(_ svg: inout SVGWriter, frame: PlotFrame, map: AxisMap, title: String, label: (Double) -> String) {
        svg.open("g", [("class", "axis y"), ("fill", Self.mutedInkColor), ("text-anchor", "end")])
        svg.leaf("line", [("x1", SVGWriter.number(frame.left)), ("y1", SVGWriter.number(frame.top)),
                          ("x2", SVGWriter.number(frame.left)), ("y2", SVGWriter.number(frame.bottom)), ("stroke", Self.axisColor)])
        for tick in map.ticks.values {
            let position = map.position(tick)
            svg.element("text", [("x", SVGWriter.number(frame.left - 8)), ("y", SVGWriter.number(position + 4))], content: label(tick))
        }
        let middle = SVGWriter.number(frame.top + frame.height / 2)
        svg.element("text", [("x", "0"), ("y", "0"), ("transform", "translate(18 " + middle + ") rotate(-90)"),
                             ("text-anchor", "middle"), ("fill", Self.inkColor)], content: title)
        svg.close("g")
    }

    /// Dashed vertical lines with their labels above the plot, staggered over two rows when labels would overlap.
    func drawMarkers(_ svg: inout SVGWriter, frame: PlotFrame, map: AxisMap, markers: [ChartMarker]) {
        guard !markers.isEmpty else { return }
        svg.open("g", [("class", "markers")])
        var rowEnds = [-Double.infinity, -Double.infinity]
        for marker in markers where marker.at.isFinite {
            let position = map.position(marker.at)
            svg.leaf("line", [("class", "marker"), ("x1", SVGWriter.number(position)), ("y1", SVGWriter.number(frame.top)),
                              ("x2", SVGWriter.number(position)), ("y2", SVGWriter.number(frame.bottom)),
                              ("stroke", Self.inkColor), ("stroke-width", "1.25"), ("stroke-dasharray", "5 4")], tooltip: marker.label)
            let labelWidth = Self.textWidth(marker.label, fontSize: 11)
            let center = min(max(position, labelWidth / 2 + 2), layout.width - labelWidth / 2 - 2)
            let row = center - labelWidth / 2 > rowEnds[0] + 6 ? 0 : 1
            rowEnds[row] = center + labelWidth / 2
            svg.element("text", [("x", SVGWriter.number(center)), ("y", SVGWriter.number(frame.top - 6 - Double(row) * Self.markerLabelRowHeight)),
                                 ("text-anchor", "middle"), ("font-size", "11"), ("fill", Self.inkColor)], content: marker.label)
        }
        svg.close("g")
    }

    /// An invisible rectangle marking the plotting area (tests check data marks fall inside it).
    func drawPlotArea(_ svg: inout SVGWriter, frame: PlotFrame) {
        svg.leaf("rect", [("class", "plot"), ("x", SVGWriter.number(frame.left)), ("y", SVGWriter.number(frame.top)),
                          ("width", SVGWriter.number(frame.width)), ("height", SVGWriter.number(frame.height)),
                          ("fill", "none"), ("stroke", "none")])
    }

    /// Horizontal dashed lines at fixed values, labelled at their right end (alarm levels, targets).
    func drawReferenceLines(_ svg: inout SVGWriter, frame: PlotFrame, map: AxisMap, lines: [ReferenceLine]) {
        let drawn = lines.filter { $0.value.isFinite }
        guard !drawn.isEmpty else { return }
        svg.open("g", [("class", "references")])
        for line in drawn {
            let position = map.position(line.value)
            svg.leaf("line", [("class", "reference"), ("x1", SVGWriter.number(frame.left)), ("y1", SVGWriter.number(position)),
                              ("x2", SVGWriter.number(frame.right)), ("y2", SVGWriter.number(position)),
                              ("stroke", line.colorHex), ("stroke-width", "1.5"), ("stroke-dasharray", "6 3")], tooltip: line.label)
            // Above the line unless that leaves the plot, then below it.
            let labelY = position - 5 < frame.top + 12 ? position + 14 : position - 5
            svg.element("text", [("x", SVGWriter.number(frame.right - 4)), ("y", SVGWriter.number(labelY)), ("text-anchor", "end"),
                                 ("font-size", "11"), ("fill", line.colorHex)] + Self.halo, content: line.label)
        }
        svg.close("g")
    }

    /// The value range a vertical axis must cover: the data plus every finite reference level.
    static func withReferences(_ values: [Double], _ lines: [ReferenceLine]) -> [Double] {
        values + lines.map { $0.value }.filter { $0.isFinite }
    }

    func drawLegend(_ svg: inout SVGWriter, frame: PlotFrame, items: [LegendItem]) {
        guard !items.isEmpty else { return }
        svg.open("g", [("class", "legend"), ("fill", Self.inkColor)])
        for placed in Self.legendLayout(items, width: layout.width - frame.legendLeft - layout.marginRight) {
            let x = frame.legendLeft + placed.x
            let y = Self.legendTop + Double(placed.row) * Self.legendRowHeight
            switch placed.item.mark {
            case .line(let dash):
                var attributes = [("class", "swatch"), ("x1", SVGWriter.number(x)), ("y1", SVGWriter.number(y + 8)),
                                  ("x2", SVGWriter.number(x + 20)), ("y2", SVGWriter.number(y + 8)),
                                  ("stroke", placed.item.color.hex), ("stroke-width", "3"), ("stroke-linecap", "round")]
                if let dash { attributes.append(("stroke-dasharray", dash)) }
                svg.leaf("line", attributes)
            case .box:
                svg.leaf("rect", [("class", "swatch"), ("x", SVGWriter.number(x + 4)), ("y", SVGWriter.number(y + 2)),
                                  ("width", "12"), ("height", "12"), ("rx", "2"), ("fill", placed.item.color.hex)])
            }
            svg.element("text", [("x", SVGWriter.number(x + 26)), ("y", SVGWriter.number(y + 12))], content: placed.item.name)
        }
        svg.close("g")
    }

    func drawNoData(_ svg: inout SVGWriter, frame: PlotFrame) {
        svg.element("text", [("class", "no-data"), ("x", SVGWriter.number(frame.left + frame.width / 2)),
                             ("y", SVGWriter.number(frame.top + frame.height / 2)), ("text-anchor", "middle"),
                             ("fill", Self.mutedInkColor)], content: "No data")
    }

    /// A tick label: fixed decimals; multiples of 1000 from 10 000 up as "10k", of 10^6 from 10^6 up as "1M".
    static func tickLabel(_ value: Double, decimals: Int) -> String {
        let magnitude = abs(value)
        if magnitude >= 1_000_000, value.truncatingRemainder(dividingBy: 1_000_000) == 0 {
            return TextFormat.fixed(value / 1_000_000, decimals: 0) + "M"
        }
        if magnitude >= 10_000, value.truncatingRemainder(dividingBy: 1000) == 0 {
            return TextFormat.fixed(value / 1000, decimals: 0) + "k"
        }
        return TextFormat.fixed(value, decimals: decimals)
    }

    /// Estimated rendered width of `text` in a proportional sans-serif font: 0.58 em per character, a little
    /// above the average of common UI fonts so labels are placed with room to spare.
    static func textWidth(_ text: String, fontSize: Double) -> Double {
        Double(text.count) * fontSize * 0.58
    }

    /// `text`, cut with "…" so its estimated width fits `width` (the full text stays in the SVG's `<desc>`
    /// and the data table).
    static func truncated(_ text: String, width: Double, fontSize: Double) -> String {
        let fitting = Int(width / (fontSize * 0.58))
        guard text.count > fitting else { return text }
        return String(text.prefix(max(fitting - 1, 1))) + "…"
    }

    static func sanitizedID(_ prefix: String) -> String {
        var out = ""
        for scalar in prefix.unicodeScalars.prefix(64) {
            let isSafe = (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9") || scalar == "-" || scalar == "_"
            out += isSafe ? String(scalar) : "-"
        }
        if let first = out.unicodeScalars.first, (first >= "a" && first <= "z") || (first >= "A" && first <= "Z") { return out }
        return "c" + out
    }

    // MARK: Legend layout

    static func legendLayout(_ items: [LegendItem], width: Double) -> [(item: LegendItem, x: Double, row: Int)] {
        var placed: [(item: LegendItem, x: Double, row: Int)] = []
        var x = 0.0
        var row = 0
        for item in items {
            let itemWidth = 26 + textWidth(item.name, fontSize: 12) + 18
            if x > 0 && x + itemWidth > width {
                row += 1
                x = 0
            }
            placed.append((item, x, row))
            x += itemWidth
        }
        return placed
    }

    static func legendHeight(_ items: [LegendItem], width: Double) -> Double {
        guard let last = legendLayout(items, width: width).last else { return 0 }
        return Double(last.row + 1) * legendRowHeight
    }

    // MARK: Frame

    /// The plotting rectangle of a chart and the chart's total height.
    struct PlotFrame {
        let left: Double
        let top: Double
        let width: Double
        let height: Double
        let totalHeight: Double
        /// Where legend rows start horizontally.
        let legendLeft: Double

        var right: Double { left + width }
        var bottom: Double { top + height }
    }
}

extension SVGChartRenderer.PlotFrame {
    /// The standard frame of an x/y chart: legend rows on top, then marker labels, then the plot.
    init(layout: ChartLayout, legend: [LegendItem], hasMarkers: Bool, extraBottom: Double = 0) {
        let left = layout.marginLeft
        let width = layout.width - left - layout.marginRight
        let legendHeight = SVGChartRenderer.legendHeight(legend, width: width)
        let top = SVGChartRenderer.legendTop + legendHeight + (hasMarkers ? 2 * SVGChartRenderer.markerLabelRowHeight + 8 : 14)
        self.init(left: left, top: top, width: width, height: layout.plotHeight,
                  totalHeight: top + layout.plotHeight + SVGChartRenderer.marginBottom + extraBottom, legendLeft: left)
    }
}

/// One legend entry.
struct LegendItem {
    enum Mark { case line(dash: String?), box }
    let name: String
    let color: ChartColor
    let mark: Mark
}

/// Maps axis values to SVG coordinates over the axis' tick range; values outside it (and non-positive
/// values on a log axis) are clipped to the nearest end.
struct AxisMap {
    let ticks: AxisTicks
    let scale: AxisScale
    let start: Double
    let length: Double
    /// Vertical axes grow upwards: the lower value sits at `start + length`.
    let inverted: Bool

    func position(_ value: Double) -> Double {
        var t: Double
        switch scale {
        case .linear:
            t = (value - ticks.lower) / (ticks.upper - ticks.lower)
        case .logarithmic:
            t = value > 0 ? (log10(value) - log10(ticks.lower)) / (log10(ticks.upper) - log10(ticks.lower)) : 0
        }
        t = t.isFinite ? min(max(t, 0), 1) : 0
        return inverted ? start + length * (1 - t) : start + length * t
    }
}
