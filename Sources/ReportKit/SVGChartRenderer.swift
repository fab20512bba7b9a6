import Foundation

/// Renders a `Chart` as a self-contained inline SVG: no scripts, no external references, fixed palette,
/// `role="img"` with `<title>`/`<desc>` for assistive technology, and a byte-identical result for the same
/// input.
///
/// Element classes let tests and stylesheets find the data marks: one `path.series` per drawn line,
/// one `path.area` per area-style time series, one `rect.band` per time band, one `line.marker` per marker,
/// one `rect.segment` per non-zero breakdown count, one `rect.bar` per finite grouped-bar value.
public struct SVGChartRenderer: Sendable {
    /// Width of every chart's view box, in SVG user units (the HTML page scales it to the column width).
    public static let width = 760.0
    /// Height of the plotting area of line and bar charts, in SVG user units.
    public static let plotHeight = 260.0

    /// The renderer holds no state; one instance can render any number of charts.
    public init() {}

    /// The chart as an `<svg>` element (one line per element, ending with a newline).
    ///
    /// - Parameter idPrefix: prefix of the element ids the `aria-labelledby` attribute points at; must be
    ///   unique within an HTML page. Characters other than ASCII letters, digits, `-` and `_` are replaced by `-`.
    /// - Complexity: O(total number of points + categories × bars).
    public func render(_ chart: Chart, idPrefix: String) -> String {
        let prefix = Self.sanitizedID(idPrefix)
        switch chart {
        case .cdf(let cdf): return renderCDF(cdf, prefix: prefix)
        case .timeSeries(let series): return renderTimeSeries(series, prefix: prefix)
        case .breakdown(let breakdown): return renderBreakdown(breakdown, prefix: prefix)
        case .groupedBars(let bars): return renderGroupedBars(bars, prefix: prefix)
        }
    }

    // MARK: Layout constants

    private static let marginLeft = 76.0
    private static let marginRight = 28.0
    private static let legendTop = 10.0
    private static let legendRowHeight = 20.0
    private static let markerLabelRowHeight = 15.0
    private static let marginBottom = 58.0
    private static let fontFamily = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Liberation Sans', sans-serif"
    private static let inkColor = "#1F2328"
    private static let mutedInkColor = "#57606A"
    private static let axisColor = "#8C959F"
    private static let gridColor = "#E4E7EB"
    /// Neutral (not a palette hue), so a shaded interval never reads as a series.
    private static let bandColor = "#6E7781"

    // MARK: CDF

    private func renderCDF(_ chart: CDFChart, prefix: String) -> String {
        let seriesPoints = chart.series.map { $0.points.filter { $0.value.isFinite && $0.fraction.isFinite } }
        let values = seriesPoints.flatMap { $0.map { $0.value } } + chart.markers.map { $0.at }.filter { $0.isFinite }
        let xTicks: AxisTicks
        switch chart.valueAxis.scale {
        case .linear: xTicks = AxisTicks.linear(values.min() ?? 0, values.max() ?? 1, maxIntervals: 8)
        case .logarithmic:
            let positive = values.filter { $0 > 0 }
            xTicks = AxisTicks.logarithmic(positive.min() ?? 1, positive.max() ?? 10)
        }
        let yTicks = AxisTicks.linear(0, 1, maxIntervals: 5)
        let legend = chart.series.enumerated().map { index, series in
            LegendItem(name: series.name, color: series.color ?? .automatic(index), mark: .line(dash: Self.dash(index)))
        }
        let frame = PlotFrame(legend: legend, hasMarkers: !chart.markers.isEmpty)
        let x = AxisMap(ticks: xTicks, scale: chart.valueAxis.scale, start: frame.left, length: frame.width, inverted: false)
        let y = AxisMap(ticks: yTicks, scale: .linear, start: frame.top, length: frame.height, inverted: true)

        var svg = SVGWriter()
        let seriesNames = chart.series.map { $0.name }.joined(separator: "; ")
        openSVG(&svg, kind: "cdf", prefix: prefix, height: frame.totalHeight, title: chart.title,
                description: chart.summary + (seriesNames.isEmpty ? "" : " Series: " + seriesNames + "."))
        drawGrid(&svg, frame: frame, x: x, y: y)
        drawXAxis(&svg, frame: frame, map: x, title: chart.valueAxis.title)
        drawYAxis(&svg, frame: frame, map: y, title: "Share of observations ≤ value", label: { TextFormat.percent(fraction: $0, decimals: 0) })
        svg.open("g", [("class", "data"), ("fill", "none"), ("stroke-width", "2.25"), ("stroke-linejoin", "round"), ("stroke-linecap", "round")])
        for (index, points) in seriesPoints.enumerated() where !points.isEmpty {
            let vertices = Self.thinned(points.map { Vertex(x: x.position($0.value), y: y.position($0.fraction)) })
            var attributes = [("class", "series"), ("d", Self.pathData([vertices])), ("stroke", legend[index].color.hex)]
            if let dash = Self.dash(index) { attributes.append(("stroke-dasharray", dash)) }
            svg.leaf("path", attributes, tooltip: chart.series[index].name)
        }
        svg.close("g")
        drawMarkers(&svg, frame: frame, map: x, markers: chart.markers)
        drawLegend(&svg, frame: frame, items: legend)
        if seriesPoints.allSatisfy({ $0.isEmpty }) { drawNoData(&svg, frame: frame) }
        svg.close("svg")
        return svg.text
    }

    // MARK: Time series

    private func renderTimeSeries(_ chart: TimeSeriesChart, prefix: String) -> String {
        let seriesPoints = chart.series.map { $0.points }
        let finite = seriesPoints.flatMap { $0 }.filter { $0.seconds.isFinite && $0.value.isFinite }
        let times = finite.map { $0.seconds } + chart.markers.map { $0.at } + chart.bands.flatMap { [$0.fromSeconds, $0.toSeconds] }
        let finiteTimes = times.filter { $0.isFinite }
        let xTicks = AxisTicks.linear(finiteTimes.min() ?? 0, finiteTimes.max() ?? 1, maxIntervals: 8)
        let yValues = finite.map { $0.value }
        let yTicks: AxisTicks
        switch chart.valueAxis.scale {
        case .linear: yTicks = AxisTicks.linear(min(0, yValues.min() ?? 0), yValues.max() ?? 1, maxIntervals: 5)
        case .logarithmic:
            let positive = yValues.filter { $0 > 0 }
            yTicks = AxisTicks.logarithmic(positive.min() ?? 1, positive.max() ?? 10)
        }
        let legend = chart.series.enumerated().map { index, series in
            LegendItem(name: series.name, color: series.color ?? .automatic(index),
                       mark: series.style == .area ? .box : .line(dash: Self.dash(index)))
        }
        let frame = PlotFrame(legend: legend, hasMarkers: !chart.markers.isEmpty)
        let x = AxisMap(ticks: xTicks, scale: .linear, start: frame.left, length: frame.width, inverted: false)
        let y = AxisMap(ticks: yTicks, scale: chart.valueAxis.scale, start: frame.top, length: frame.height, inverted: true)

        var svg = SVGWriter()
        let seriesNames = chart.series.map { $0.name }.joined(separator: "; ")
        openSVG(&svg, kind: "time-series", prefix: prefix, height: frame.totalHeight, title: chart.title,
                description: chart.summary + (seriesNames.isEmpty ? "" : " Series: " + seriesNames + "."))
        drawGrid(&svg, frame: frame, x: x, y: y)
        svg.open("g", [("class", "bands")])
        for band in chart.bands where band.fromSeconds.isFinite && band.toSeconds.isFinite {
            let left = x.position(min(band.fromSeconds, band.toSeconds))
            let right = x.position(max(band.fromSeconds, band.toSeconds))
            svg.leaf("rect", [("class", "band"), ("x", SVGWriter.number(left)), ("y", SVGWriter.number(frame.top)),
                              ("width", SVGWriter.number(right - left)), ("height", SVGWriter.number(frame.height)),
                              ("fill", Self.bandColor), ("fill-opacity", "0.12")], tooltip: band.label)
            svg.element("text", [("x", SVGWriter.number(left + 6)), ("y", SVGWriter.number(frame.bottom - 8)),
                                 ("fill", Self.mutedInkColor), ("font-size", "11")] + Self.halo, content: band.label)
        }
        svg.close("g")
        drawXAxis(&svg, frame: frame, map: x, title: "Virtual time (s)")
        drawYAxis(&svg, frame: frame, map: y, title: chart.valueAxis.title,
                  label: { Self.tickLabel($0, decimals: yTicks.decimals) })
        let baseline = y.position(chart.valueAxis.scale == .linear ? min(max(0, yTicks.lower), yTicks.upper) : yTicks.lower)
        svg.open("g", [("class", "data"), ("stroke-width", "2.25"), ("stroke-linejoin", "round"), ("stroke-linecap", "round")])
        for (index, points) in seriesPoints.enumerated() {
            let runs = Self.finiteRuns(points).map { run in
                Self.thinned(run.map { Vertex(x: x.position($0.seconds), y: y.position($0.value)) })
            }
            if runs.isEmpty { continue }
            let color = legend[index].color.hex
            if chart.series[index].style == .area {
                // Each run closed down to the baseline.
                let closed = runs.map { run in [Vertex(x: run[0].x, y: baseline)] + run + [Vertex(x: run[run.count - 1].x, y: baseline)] }
                let area = closed.map { Self.pathData([$0]) + " Z" }.joined(separator: " ")
                svg.leaf("path", [("class", "area"), ("d", area), ("fill", color), ("fill-opacity", "0.18"), ("stroke", "none")])
            }
            var attributes = [("class", "series"), ("d", Self.pathData(runs)), ("fill", "none"), ("stroke", color)]
            if let dash = Self.dash(index) { attributes.append(("stroke-dasharray", dash)) }
            svg.leaf("path", attributes, tooltip: chart.series[index].name)
        }
        svg.close("g")
        drawMarkers(&svg, frame: frame, map: x, markers: chart.markers)
        drawLegend(&svg, frame: frame, items: legend)
        if finite.isEmpty { drawNoData(&svg, frame: frame) }
        svg.close("svg")
        return svg.text
    }

    /// A point in SVG user units.
    struct Vertex: Equatable {
        let x: Double
        let y: Double
    }

    /// Most vertices drawn for one line; longer lines are thinned by `thinned`.
    public static let verticesPerLineMax = 4_000

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
    private static func finiteRuns(_ points: [TimePoint]) -> [[TimePoint]] {
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

    // MARK: Breakdown

    private static let breakdownBarHeight = 30.0
    private static let breakdownBarGap = 14.0

    private func renderBreakdown(_ chart: BreakdownChart, prefix: String) -> String {
        let legend = chart.categories.enumerated().map { index, category in
            LegendItem(name: category.name, color: category.color ?? .automatic(index), mark: .box)
        }
        let longestLabel = chart.bars.map { Self.textWidth($0.label, fontSize: 12) }.max() ?? 0
        let labelWidth = min(max(longestLabel + 14, 56), 200)
        let totalLabels = chart.bars.map { "n = " + TextFormat.count($0.total(categories: chart.categories.count)) }
        let totalWidth = (totalLabels.map { Self.textWidth($0, fontSize: 11) }.max() ?? 0) + 22
        let left = 12 + labelWidth
        let legendHeight = Self.legendHeight(legend, width: Self.width - left - Self.marginRight)
        let top = Self.legendTop + legendHeight + 10
        let barsHeight = Double(chart.bars.count) * (Self.breakdownBarHeight + Self.breakdownBarGap) - (chart.bars.isEmpty ? 0 : Self.breakdownBarGap)
        let plotHeight = max(barsHeight, Self.breakdownBarHeight)
        let bottom = top + plotHeight
        let height = bottom + 52
        let frame = PlotFrame(left: left, top: top, width: Self.width - left - totalWidth, height: plotHeight, totalHeight: height, legendLeft: left)
        let xTicks = AxisTicks.linear(0, 1, maxIntervals: 5)
        let x = AxisMap(ticks: xTicks, scale: .linear, start: frame.left, length: frame.width, inverted: false)

        var svg = SVGWriter()
        openSVG(&svg, kind: "breakdown", prefix: prefix, height: height, title: chart.title,
                description: chart.summary + " Categories: " + chart.categories.map { $0.name }.joined(separator: "; ") + ".")
        svg.open("g", [("class", "grid"), ("stroke", Self.gridColor), ("stroke-width", "1")])
        for tick in xTicks.values {
            let position = SVGWriter.number(x.position(tick))
            svg.leaf("line", [("x1", position), ("y1", SVGWriter.number(frame.top - 4)), ("x2", position), ("y2", SVGWriter.number(frame.bottom + 4))])
        }
        svg.close("g")
        svg.open("g", [("class", "axis x"), ("fill", Self.mutedInkColor), ("text-anchor", "middle")])
        for tick in xTicks.values {
            svg.element("text", [("x", SVGWriter.number(x.position(tick))), ("y", SVGWriter.number(frame.bottom + 20))],
                        content: TextFormat.percent(fraction: tick, decimals: 0))
        }
        svg.element("text", [("x", SVGWriter.number(frame.left + frame.width / 2)), ("y", SVGWriter.number(frame.bottom + 42)),
                             ("fill", Self.inkColor)], content: "Share of " + chart.countNoun)
        svg.close("g")

        svg.open("g", [("class", "data")])
        for (barIndex, bar) in chart.bars.enumerated() {
            let barTop = frame.top + Double(barIndex) * (Self.breakdownBarHeight + Self.breakdownBarGap)
            let middle = barTop + Self.breakdownBarHeight / 2
            svg.element("text", [("x", SVGWriter.number(left - 10)), ("y", SVGWriter.number(middle + 4)), ("text-anchor", "end"),
                                 ("fill", Self.inkColor)], content: Self.truncated(bar.label, width: labelWidth - 12, fontSize: 12))
            let total = bar.total(categories: chart.categories.count)
            svg.element("text", [("x", SVGWriter.number(frame.right + 10)), ("y", SVGWriter.number(middle + 4)),
                                 ("fill", Self.mutedInkColor), ("font-size", "11")], content: totalLabels[barIndex])
            guard total > 0 else {
                svg.leaf("rect", [("class", "empty-bar"), ("x", SVGWriter.number(frame.left)), ("y", SVGWriter.number(barTop)),
                                  ("width", SVGWriter.number(frame.width)), ("height", SVGWriter.number(Self.breakdownBarHeight)),
                                  ("fill", "none"), ("stroke", Self.axisColor), ("stroke-dasharray", "4 3")])
                svg.element("text", [("x", SVGWriter.number(frame.left + frame.width / 2)), ("y", SVGWriter.number(middle + 4)),
                                     ("text-anchor", "middle"), ("fill", Self.mutedInkColor)], content: "no " + chart.countNoun)
                continue
            }
            var cumulative = 0
            for (categoryIndex, category) in chart.categories.enumerated() {
                let count = bar.count(at: categoryIndex)
                guard count > 0 else { continue }
                let share = Double(count) / Double(total)
                let start = x.position(Double(cumulative) / Double(total))
                cumulative += count
                let end = x.position(Double(cumulative) / Double(total))
                let color = legend[categoryIndex].color
                svg.leaf("rect", [("class", "segment"), ("x", SVGWriter.number(start)), ("y", SVGWriter.number(barTop)),
                                  ("width", SVGWriter.number(end - start)), ("height", SVGWriter.number(Self.breakdownBarHeight)),
                                  ("fill", color.hex), ("stroke", "#FFFFFF"), ("stroke-width", "1")],
                         tooltip: bar.label + " · " + category.name + ": " + TextFormat.count(count) + " (" + TextFormat.percent(fraction: share) + ")")
                let label = TextFormat.percent(fraction: share, decimals: share < 0.1 ? 1 : 0)
                if end - start >= Self.textWidth(label, fontSize: 11) + 8 {
                    svg.element("text", [("x", SVGWriter.number((start + end) / 2)), ("y", SVGWriter.number(middle + 4)),
                                         ("text-anchor", "middle"), ("font-size", "11"), ("font-weight", "600"),
                                         ("fill", color.wantsDarkText ? Self.inkColor : "#FFFFFF")], content: label)
                }
            }
        }
        svg.close("g")
        drawLegend(&svg, frame: frame, items: legend)
        svg.close("svg")
        return svg.text
    }

    // MARK: Grouped bars

    private func renderGroupedBars(_ chart: GroupedBarChart, prefix: String) -> String {
        let values = chart.drawnValues
        let display = chart.displayScale
        let scaled = values.map { $0 / display.divisor }
        let yTicks = AxisTicks.linear(min(0, scaled.min() ?? 0), max(0, scaled.max() ?? 1), maxIntervals: 5)
        let legend = chart.series.enumerated().map { index, series in
            LegendItem(name: series.name, color: series.color ?? .automatic(index), mark: .box)
        }
        let frame = PlotFrame(legend: legend, hasMarkers: false)
        let y = AxisMap(ticks: yTicks, scale: .linear, start: frame.top, length: frame.height, inverted: true)
        let unitTitle = chart.valueLabel + (display.unit.isEmpty ? "" : " (" + display.unit + ")")

        var svg = SVGWriter()
        openSVG(&svg, kind: "grouped-bars", prefix: prefix, height: frame.totalHeight, title: chart.title,
                description: chart.summary + " Groups: " + chart.groups.joined(separator: "; ") + ". Series: "
                    + chart.series.map { $0.name }.joined(separator: "; ") + ".")
        svg.open("g", [("class", "grid"), ("stroke", Self.gridColor), ("stroke-width", "1")])
        for tick in yTicks.values {
            let position = SVGWriter.number(y.position(tick))
            svg.leaf("line", [("x1", SVGWriter.number(frame.left)), ("y1", position), ("x2", SVGWriter.number(frame.right)), ("y2", position)])
        }
        svg.close("g")
        drawYAxis(&svg, frame: frame, map: y, title: unitTitle, label: { Self.tickLabel($0, decimals: yTicks.decimals) })

        let groupWidth = frame.width / Double(max(chart.groups.count, 1))
        let seriesCount = Double(max(chart.series.count, 1))
        let barWidth = min(groupWidth * 0.78 / seriesCount, 64)
        let clusterWidth = barWidth * seriesCount
        let zero = y.position(min(max(0, yTicks.lower), yTicks.upper))
        svg.open("g", [("class", "axis x"), ("fill", Self.inkColor), ("text-anchor", "middle")])
        for (groupIndex, group) in chart.groups.enumerated() {
            let center = frame.left + groupWidth * (Double(groupIndex) + 0.5)
            svg.element("text", [("x", SVGWriter.number(center)), ("y", SVGWriter.number(frame.bottom + 20))],
                        content: Self.truncated(group, width: groupWidth - 8, fontSize: 12))
        }
        svg.close("g")
        svg.open("g", [("class", "data")])
        for (groupIndex, group) in chart.groups.enumerated() {
            let clusterLeft = frame.left + groupWidth * Double(groupIndex) + (groupWidth - clusterWidth) / 2
            for (seriesIndex, series) in chart.series.enumerated() {
                guard groupIndex < series.values.count, series.values[groupIndex].isFinite else { continue }
                let value = series.values[groupIndex] / display.divisor
                let barLeft = clusterLeft + barWidth * Double(seriesIndex)
                let top = min(y.position(value), zero)
                let height = abs(zero - y.position(value))
                let valueText = TextFormat.fixed(value, decimals: display.decimals(for: value))
                let withUnit = display.unit.isEmpty ? valueText : valueText + " " + display.unit
                svg.leaf("rect", [("class", "bar"), ("x", SVGWriter.number(barLeft + 1)), ("y", SVGWriter.number(top)),
                                  ("width", SVGWriter.number(barWidth - 2)), ("height", SVGWriter.number(height)),
                                  ("fill", legend[seriesIndex].color.hex)],
                         tooltip: group + " · " + series.name + ": " + withUnit)
                let label = Self.textWidth(withUnit, fontSize: 11) <= barWidth + 6 ? withUnit
                    : (Self.textWidth(valueText, fontSize: 11) <= barWidth + 6 ? valueText : "")
                if !label.isEmpty {
                    let labelY = value >= 0 ? top - 5 : top + height + 13
                    svg.element("text", [("x", SVGWriter.number(barLeft + barWidth / 2)), ("y", SVGWriter.number(labelY)),
                                         ("text-anchor", "middle"), ("font-size", "11"), ("fill", Self.inkColor)], content: label)
                }
            }
        }
        svg.close("g")
        svg.leaf("line", [("class", "baseline"), ("x1", SVGWriter.number(frame.left)), ("y1", SVGWriter.number(zero)),
                          ("x2", SVGWriter.number(frame.right)), ("y2", SVGWriter.number(zero)), ("stroke", Self.axisColor)])
        drawLegend(&svg, frame: frame, items: legend)
        if values.isEmpty { drawNoData(&svg, frame: frame) }
        svg.close("svg")
        return svg.text
    }

    // MARK: Shared pieces

    private static let halo: [(String, String)] = [("stroke", "#FFFFFF"), ("stroke-width", "3"), ("paint-order", "stroke")]

    private func openSVG(_ svg: inout SVGWriter, kind: String, prefix: String, height: Double, title: String, description: String) {
        svg.open("svg", [("xmlns", "http://www.w3.org/2000/svg"), ("class", "chart chart-" + kind),
                         ("viewBox", "0 0 " + SVGWriter.number(Self.width) + " " + SVGWriter.number(height)),
                         ("width", SVGWriter.number(Self.width)), ("height", SVGWriter.number(height)),
                         ("role", "img"), ("aria-labelledby", prefix + "-title " + prefix + "-desc"),
                         ("font-family", Self.fontFamily), ("font-size", "12")])
        svg.newline()
        svg.element("title", [("id", prefix + "-title")], content: title)
        svg.element("desc", [("id", prefix + "-desc")], content: description)
    }

    /// Light lines at every tick of both axes, behind the data.
    private func drawGrid(_ svg: inout SVGWriter, frame: PlotFrame, x: AxisMap, y: AxisMap) {
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

    private func drawXAxis(_ svg: inout SVGWriter, frame: PlotFrame, map: AxisMap, title: String) {
        svg.open("g", [("class", "axis x"), ("fill", Self.mutedInkColor), ("text-anchor", "middle")])
        svg.leaf("line", [("x1", SVGWriter.number(frame.left)), ("y1", SVGWriter.number(frame.bottom)),
                          ("x2", SVGWriter.number(frame.right)), ("y2", SVGWriter.number(frame.bottom)), ("stroke", Self.axisColor)])
        for tick in map.ticks.values {
            let position = SVGWriter.number(map.position(tick))
            svg.leaf("line", [("x1", position), ("y1", SVGWriter.number(frame.bottom)), ("x2", position),
                              ("y2", SVGWriter.number(frame.bottom + 5)), ("stroke", Self.axisColor)])
            svg.element("text", [("x", position), ("y", SVGWriter.number(frame.bottom + 20))],
                        content: Self.tickLabel(tick, decimals: map.ticks.decimals))
        }
        svg.element("text", [("x", SVGWriter.number(frame.left + frame.width / 2)), ("y", SVGWriter.number(frame.bottom + 44)),
                             ("fill", Self.inkColor)], content: title)
        svg.close("g")
    }

    private func drawYAxis(_ svg: inout SVGWriter, frame: PlotFrame, map: AxisMap, title: String, label: (Double) -> String) {
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
    private func drawMarkers(_ svg: inout SVGWriter, frame: PlotFrame, map: AxisMap, markers: [ChartMarker]) {
        guard !markers.isEmpty else { return }
        svg.open("g", [("class", "markers")])
        var rowEnds = [-Double.infinity, -Double.infinity]
        for marker in markers where marker.at.isFinite {
            let position = map.position(marker.at)
            svg.leaf("line", [("class", "marker"), ("x1", SVGWriter.number(position)), ("y1", SVGWriter.number(frame.top)),
                              ("x2", SVGWriter.number(position)), ("y2", SVGWriter.number(frame.bottom)),
                              ("stroke", Self.inkColor), ("stroke-width", "1.25"), ("stroke-dasharray", "5 4")], tooltip: marker.label)
            let labelWidth = Self.textWidth(marker.label, fontSize: 11)
            let center = min(max(position, labelWidth / 2 + 2), Self.width - labelWidth / 2 - 2)
            let row = center - labelWidth / 2 > rowEnds[0] + 6 ? 0 : 1
            rowEnds[row] = center + labelWidth / 2
            svg.element("text", [("x", SVGWriter.number(center)), ("y", SVGWriter.number(frame.top - 6 - Double(row) * Self.markerLabelRowHeight)),
                                 ("text-anchor", "middle"), ("font-size", "11"), ("fill", Self.inkColor)], content: marker.label)
        }
        svg.close("g")
    }

    private func drawLegend(_ svg: inout SVGWriter, frame: PlotFrame, items: [LegendItem]) {
        guard !items.isEmpty else { return }
        svg.open("g", [("class", "legend"), ("fill", Self.inkColor)])
        for placed in Self.legendLayout(items, width: Self.width - frame.legendLeft - Self.marginRight) {
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

    private func drawNoData(_ svg: inout SVGWriter, frame: PlotFrame) {
        svg.element("text", [("class", "no-data"), ("x", SVGWriter.number(frame.left + frame.width / 2)),
                             ("y", SVGWriter.number(frame.top + frame.height / 2)), ("text-anchor", "middle"),
                             ("fill", Self.mutedInkColor)], content: "No data")
    }

    /// Dash pattern for line series past the first palette cycle, so a ninth series is not a copy of the first.
    private static func dash(_ index: Int) -> String? {
        switch (index / ChartColor.allCases.count) % 3 {
        case 0: return nil
        case 1: return "7 4"
        default: return "2 3"
        }
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

    fileprivate static func legendLayout(_ items: [LegendItem], width: Double) -> [(item: LegendItem, x: Double, row: Int)] {
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

    fileprivate static func legendHeight(_ items: [LegendItem], width: Double) -> Double {
        guard let last = legendLayout(items, width: width).last else { return 0 }
        return Double(last.row + 1) * legendRowHeight
    }

    // MARK: Frame

    /// The plotting rectangle of a chart and the chart's total height.
    fileprivate struct PlotFrame {
        let left: Double
        let top: Double
        let width: Double
        let height: Double
        let totalHeight: Double
        /// Where legend rows start horizontally.
        let legendLeft: Double

        var right: Double { left + width }
        var bottom: Double { top + height }

        init(left: Double, top: Double, width: Double, height: Double, totalHeight: Double, legendLeft: Double) {
            self.left = left
            self.top = top
            self.width = width
            self.height = height
            self.totalHeight = totalHeight
            self.legendLeft = legendLeft
        }

        /// The standard frame of an x/y chart: legend rows on top, then marker labels, then the plot.
        init(legend: [LegendItem], hasMarkers: Bool) {
            let left = SVGChartRenderer.marginLeft
            let width = SVGChartRenderer.width - left - SVGChartRenderer.marginRight
            let legendHeight = SVGChartRenderer.legendHeight(legend, width: width)
            let top = SVGChartRenderer.legendTop + legendHeight + (hasMarkers ? 2 * SVGChartRenderer.markerLabelRowHeight + 8 : 14)
            self.init(left: left, top: top, width: width, height: SVGChartRenderer.plotHeight,
                      totalHeight: top + SVGChartRenderer.plotHeight + SVGChartRenderer.marginBottom, legendLeft: left)
        }
    }
}

/// One legend entry.
private struct LegendItem {
    enum Mark { case line(dash: String?), box }
    let name: String
    let color: ChartColor
    let mark: Mark
}

/// Maps axis values to SVG coordinates over the axis' tick range; values outside it (and non-positive
/// values on a log axis) are clipped to the nearest end.
private struct AxisMap {
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
