import Foundation

/// Line-drawing charts: cumulative distributions, time series (with focus and overview) and line charts
/// with confidence bands.
extension SVGChartRenderer {
    // MARK: CDF

    func renderCDF(_ chart: CDFChart, prefix: String) -> String {
        let seriesPoints = chart.series.map { $0.points.filter { $0.value.isFinite && $0.fraction.isFinite } }
        let values = seriesPoints.flatMap { $0.map { $0.value } } + chart.markers.map { $0.at }.filter { $0.isFinite }
        let xTicks = Self.ticks(covering: values, scale: chart.valueAxis.scale, fromZero: false, intervalsMax: layout.xIntervalsMax)
        let yTicks = AxisTicks.linear(0, 1, maxIntervals: 5)
        let legend = chart.series.enumerated().map { index, series in
            LegendItem(name: series.name, color: series.color ?? .automatic(index), mark: .line(dash: (series.dash ?? .automatic(index)).pattern))
        }
        let frame = PlotFrame(layout: layout, legend: legend, hasMarkers: !chart.markers.isEmpty)
        let x = AxisMap(ticks: xTicks, scale: chart.valueAxis.scale, start: frame.left, length: frame.width, inverted: false)
        let y = AxisMap(ticks: yTicks, scale: .linear, start: frame.top, length: frame.height, inverted: true)

        var svg = SVGWriter()
        openSVG(&svg, kind: "cdf", prefix: prefix, height: frame.totalHeight, title: chart.title,
                description: Self.described(chart.summary, series: chart.series.map(\.name)))
        drawGrid(&svg, frame: frame, x: x, y: y)
        drawAxes(&svg, frame: frame, x: x, xTitle: chart.valueAxis.title, y: y, yTitle: "Share ≤ value",
                 yLabel: { TextFormat.percent(fraction: $0, decimals: 0) })
        svg.open("g", [("class", "data"), ("fill", "none"), ("stroke-width", "2.25"), ("stroke-linejoin", "round"), ("stroke-linecap", "round")])
        for (index, points) in seriesPoints.enumerated() where !points.isEmpty {
            let vertices = Self.thinned(points.map { Vertex(x: x.position($0.value), y: y.position($0.fraction)) })
            var attributes = [("class", "series"), ("d", Self.pathData([vertices])), ("stroke", legend[index].color.hex)]
            if case .line(let dash?) = legend[index].mark { attributes.append(("stroke-dasharray", dash)) }
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

    /// Room under a time series' x axis for the overview strip: its label row, the strip and its end labels.
    private var overviewBlockHeight: Double { 20 + layout.overviewHeight + 20 }

    func renderTimeSeries(_ chart: TimeSeriesChart, prefix: String) -> String {
        let allFinite = chart.series.flatMap { $0.points }.filter { $0.seconds.isFinite && $0.value.isFinite }
        // The whole run: every point's time (a gap point still marks time covered), every marker and band.
        let allTimes = (chart.series.flatMap { $0.points.map { $0.seconds } } + chart.markers.map { $0.at }
                        + chart.bands.flatMap { [$0.fromSeconds, $0.toSeconds] }).filter { $0.isFinite }
        let whole = TimeRange(fromSeconds: allTimes.min() ?? 0, toSeconds: allTimes.max() ?? 1)
        let focus = chart.focus.flatMap { $0.isUsable ? $0 : nil }
        let shown = focus ?? whole
        let visiblePoints = chart.series.map { line in line.points.filter { !$0.seconds.isFinite || shown.contains($0.seconds) } }
        let finite = visiblePoints.flatMap { $0 }.filter { $0.seconds.isFinite && $0.value.isFinite }
        let xTicks = focus.map { AxisTicks.linear($0.fromSeconds, $0.toSeconds, maxIntervals: layout.xIntervalsMax) }
            ?? AxisTicks.linear(whole.fromSeconds, whole.toSeconds, maxIntervals: layout.xIntervalsMax)
        let yValues = Self.withReferences(finite.map { $0.value }, chart.referenceLines)
        let yTicks = Self.ticks(covering: yValues, scale: chart.valueAxis.scale, fromZero: true, intervalsMax: 5)
        let legend = chart.series.enumerated().map { index, series in
            LegendItem(name: series.name, color: series.color ?? .automatic(index),
                       mark: series.style == .area ? .box : .line(dash: (series.dash ?? .automatic(index)).pattern))
        }
        let markers = chart.markers.filter { $0.at.isFinite && shown.contains($0.at) }
        let withOverview = focus != nil && chart.showsOverview && !allFinite.isEmpty
        let frame = PlotFrame(layout: layout, legend: legend, hasMarkers: !markers.isEmpty, extraBottom: withOverview ? overviewBlockHeight : 0)
        let x = AxisMap(ticks: xTicks, scale: .linear, start: frame.left, length: frame.width, inverted: false)
        let y = AxisMap(ticks: yTicks, scale: chart.valueAxis.scale, start: frame.top, length: frame.height, inverted: true)

        var svg = SVGWriter()
        let focusNote = focus.map { " Shown: " + TextFormat.fixed($0.fromSeconds, decimals: 0, grouping: true) + "–"
            + TextFormat.fixed($0.toSeconds, decimals: 0, grouping: true) + " s of the run." } ?? ""
        openSVG(&svg, kind: "time-series", prefix: prefix, height: frame.totalHeight, title: chart.title,
                description: Self.described(chart.summary + focusNote, series: chart.series.map(\.name)))
        drawGrid(&svg, frame: frame, x: x, y: y)
        svg.open("g", [("class", "bands")])
        for band in chart.bands where band.fromSeconds.isFinite && band.toSeconds.isFinite {
            let from = max(min(band.fromSeconds, band.toSeconds), shown.fromSeconds)
            let to = min(max(band.fromSeconds, band.toSeconds), shown.toSeconds)
            guard to >= from else { continue }
            let left = x.position(from), right = x.position(to)
            svg.leaf("rect", [("class", "band"), ("x", SVGWriter.number(left)), ("y", SVGWriter.number(frame.top)),
                              ("width", SVGWriter.number(right - left)), ("height", SVGWriter.number(frame.height)),
                              ("fill", Self.bandColor), ("fill-opacity", "0.12")], tooltip: band.label)
            let labelLeft = min(left + 6, frame.right - Self.textWidth(band.label, fontSize: 11) - 4)
            svg.element("text", [("x", SVGWriter.number(max(labelLeft, frame.left + 4))), ("y", SVGWriter.number(frame.bottom - 8)),
                                 ("fill", Self.mutedInkColor), ("font-size", "11")] + Self.halo, content: band.label)
        }
        svg.close("g")
        drawAxes(&svg, frame: frame, x: x, xTitle: "Virtual time (s)", y: y, yTitle: chart.valueAxis.title,
                 yLabel: { Self.tickLabel($0, decimals: yTicks.decimals) })
        let baseline = y.position(chart.valueAxis.scale == .linear ? min(max(0, yTicks.lower), yTicks.upper) : yTicks.lower)
        svg.open("g", [("class", "data"), ("stroke-width", "2.25"), ("stroke-linejoin", "round"), ("stroke-linecap", "round")])
        for (index, points) in visiblePoints.enumerated() {
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
            if case .line(let dash?) = legend[index].mark { attributes.append(("stroke-dasharray", dash)) }
            svg.leaf("path", attributes, tooltip: chart.series[index].name)
            // A run of one point is a path of a single move: nothing would show. Draw it as a dot (e.g. a
            // region whose pre-stage misses all fall in the first bin after a cold send).
            for run in runs where run.count == 1 {
                svg.leaf("circle", [("class", "series-point"), ("cx", SVGWriter.number(run[0].x)), ("cy", SVGWriter.number(run[0].y)),
                                    ("r", "4"), ("fill", color), ("stroke", "none")], tooltip: chart.series[index].name)
            }
        }
        svg.close("g")
        drawReferenceLines(&svg, frame: frame, map: y, lines: chart.referenceLines)
        drawMarkers(&svg, frame: frame, map: x, markers: markers)
        drawLegend(&svg, frame: frame, items: legend)
        if finite.isEmpty { drawNoData(&svg, frame: frame) }
        if withOverview, let focus {
            drawOverview(&svg, chart: chart, frame: frame, whole: whole, focus: focus, colors: legend.map { $0.color })
        }
        svg.close("svg")
        return svg.text
    }

    /// A small strip under the x axis showing the whole run, each series as a thin line scaled to its own
    /// peak, with the focused interval shaded and the markers as ticks.
    private func drawOverview(_ svg: inout SVGWriter, chart: TimeSeriesChart, frame: PlotFrame, whole: TimeRange, focus: TimeRange,
                              colors: [ChartColor]) {
        let top = frame.bottom + Self.marginBottom + 20
        let strip = PlotFrame(left: frame.left, top: top, width: frame.width, height: layout.overviewHeight,
                              totalHeight: frame.totalHeight, legendLeft: frame.left)
        let x = AxisMap(ticks: AxisTicks(lower: whole.fromSeconds, upper: whole.toSeconds, values: [whole.fromSeconds, whole.toSeconds], decimals: 0), scale: .linear, start: strip.left,
                        length: strip.width, inverted: false)
        svg.open("g", [("class", "overview"), ("fill", Self.mutedInkColor)])
        svg.element("text", [("x", SVGWriter.number(strip.left)), ("y", SVGWriter.number(top - 6)), ("font-size", "11")],
                    content: "Whole run (shaded: shown above)")
        svg.leaf("rect", [("class", "overview-frame"), ("x", SVGWriter.number(strip.left)), ("y", SVGWriter.number(strip.top)),
                          ("width", SVGWriter.number(strip.width)), ("height", SVGWriter.number(strip.height)),
                          ("fill", "none"), ("stroke", Self.gridColor)])
        let focusLeft = x.position(focus.fromSeconds), focusRight = x.position(focus.toSeconds)
        svg.leaf("rect", [("class", "overview-focus"), ("x", SVGWriter.number(focusLeft)), ("y", SVGWriter.number(strip.top)),
                          ("width", SVGWriter.number(max(focusRight - focusLeft, 1))), ("height", SVGWriter.number(strip.height)),
                          ("fill", ChartColor.blue.hex), ("fill-opacity", "0.15"), ("stroke", ChartColor.blue.hex), ("stroke-width", "1")])
        for marker in chart.markers where marker.at.isFinite {
            let position = SVGWriter.number(x.position(marker.at))
            svg.leaf("line", [("class", "overview-marker"), ("x1", position), ("y1", SVGWriter.number(strip.top)), ("x2", position),
                              ("y2", SVGWriter.number(strip.bottom)), ("stroke", Self.inkColor), ("stroke-dasharray", "3 3")], tooltip: marker.label)
        }
        for (index, line) in chart.series.enumerated() {
            let peak = line.points.filter { $0.value.isFinite && $0.seconds.isFinite }.map { abs($0.value) }.max() ?? 0
            guard peak > 0 else { continue }
            let y = AxisMap(ticks: AxisTicks(lower: 0, upper: peak, values: [0, peak], decimals: 0), scale: .linear, start: strip.top + 2, length: strip.height - 4, inverted: true)
            let runs = Self.finiteRuns(line.points).map { run in Self.thinned(run.map { Vertex(x: x.position($0.seconds), y: y.position($0.value)) }) }
            svg.leaf("path", [("class", "overview-series"), ("d", Self.pathData(runs)), ("fill", "none"), ("stroke", colors[index].hex),
                              ("stroke-width", "1.25")])
        }
        svg.element("text", [("x", SVGWriter.number(strip.left)), ("y", SVGWriter.number(strip.bottom + 14)), ("font-size", "11")],
                    content: TextFormat.fixed(whole.fromSeconds, decimals: 0, grouping: true) + " s")
        svg.element("text", [("x", SVGWriter.number(strip.right)), ("y", SVGWriter.number(strip.bottom + 14)), ("font-size", "11"),
                             ("text-anchor", "end")], content: TextFormat.fixed(whole.toSeconds, decimals: 0, grouping: true) + " s")
        svg.close("g")
    }

    // MARK: Line chart

    func renderLineChart(_ chart: LineChart, prefix: String) -> String {
        let drawable = chart.series.map { $0.points.filter { $0.x.isFinite && $0.y.isFinite } }
        let xs = drawable.flatMap { $0.map { $0.x } }
        let ys = drawable.flatMap { $0.flatMap { [$0.y, $0.lower ?? $0.y, $0.upper ?? $0.y] } }.filter { $0.isFinite }
        let xTicks = Self.ticks(covering: xs, scale: chart.xAxis.scale, fromZero: false, intervalsMax: layout.xIntervalsMax)
        let yValues = Self.withReferences(ys, chart.referenceLines)
        let yTicks = Self.ticks(covering: yValues, scale: chart.yAxis.scale, fromZero: true, intervalsMax: 5)
        let legend = chart.series.enumerated().map { index, series in
            LegendItem(name: series.name, color: series.color ?? .automatic(index), mark: .line(dash: (series.dash ?? .automatic(index)).pattern))
        }
        let markers = chart.markers.filter { $0.at.isFinite }
        let frame = PlotFrame(layout: layout, legend: legend, hasMarkers: !markers.isEmpty)
        let x = AxisMap(ticks: xTicks, scale: chart.xAxis.scale, start: frame.left, length: frame.width, inverted: false)
        let y = AxisMap(ticks: yTicks, scale: chart.yAxis.scale, start: frame.top, length: frame.height, inverted: true)

        var svg = SVGWriter()
        openSVG(&svg, kind: "line", prefix: prefix, height: frame.totalHeight, title: chart.title,
                description: Self.described(chart.summary, series: chart.series.map(\.name)))
        drawGrid(&svg, frame: frame, x: x, y: y)
        drawAxes(&svg, frame: frame, x: x, xTitle: chart.xAxis.title, y: y, yTitle: chart.yAxis.title,
                 yLabel: { Self.tickLabel($0, decimals: yTicks.decimals) })
        svg.open("g", [("class", "data"), ("stroke-linejoin", "round"), ("stroke-linecap", "round")])
        for (index, points) in drawable.enumerated() where !points.isEmpty {
            let color = legend[index].color.hex
            let upper = points.compactMap { p in p.upper.flatMap { $0.isFinite ? Vertex(x: x.position(p.x), y: y.position($0)) : nil } }
            let lower = points.compactMap { p in p.lower.flatMap { $0.isFinite ? Vertex(x: x.position(p.x), y: y.position($0)) : nil } }
            if upper.count == points.count && lower.count == points.count && points.count > 1 {
                svg.leaf("path", [("class", "ci-band"), ("d", Self.pathData([upper + lower.reversed()]) + " Z"), ("fill", color),
                                  ("fill-opacity", "0.15"), ("stroke", "none")])
            }
            let vertices = points.map { Vertex(x: x.position($0.x), y: y.position($0.y)) }
            var attributes = [("class", "series"), ("d", Self.pathData([vertices])), ("fill", "none"), ("stroke", color), ("stroke-width", "2.25")]
            if case .line(let dash?) = legend[index].mark { attributes.append(("stroke-dasharray", dash)) }
            svg.leaf("path", attributes, tooltip: chart.series[index].name)
            for (point, vertex) in zip(points, vertices) {
                let interval = point.lower.flatMap { low in point.upper.map { " [" + TextFormat.fixed(low, decimals: chart.yDecimals) + ", "
                    + TextFormat.fixed($0, decimals: chart.yDecimals) + "]" } } ?? ""
                svg.leaf("circle", [("class", "point"), ("cx", SVGWriter.number(vertex.x)), ("cy", SVGWriter.number(vertex.y)), ("r", "3"),
                                    ("fill", color)],
                         tooltip: chart.series[index].name + ": " + TextFormat.fixed(point.x, decimals: chart.xDecimals) + " → "
                            + TextFormat.fixed(point.y, decimals: chart.yDecimals) + interval)
            }
        }
        svg.close("g")
        drawReferenceLines(&svg, frame: frame, map: y, lines: chart.referenceLines)
        drawMarkers(&svg, frame: frame, map: x, markers: markers)
        drawLegend(&svg, frame: frame, items: legend)
        if xs.isEmpty { drawNoData(&svg, frame: frame) }
        svg.close("svg")
        return svg.text
    }
}

extension SVGChartRenderer {
    /// The ticks of an axis over `values` on `scale`. Linear: from the smallest value (from 0 or
    /// below when `fromZero`, as value axes start) to the largest, at most `intervalsMax`
    /// intervals; 0…1 without values. Logarithmic: over the positive values, 1…10 without any.
    static func ticks(covering values: [Double], scale: AxisScale, fromZero: Bool, intervalsMax: Int) -> AxisTicks {
        switch scale {
        case .linear:
            let lower = values.min() ?? 0
            return AxisTicks.linear(fromZero ? min(0, lower) : lower, values.max() ?? 1, maxIntervals: intervalsMax)
        case .logarithmic:
            let positive = values.filter { $0 > 0 }
            return AxisTicks.logarithmic(positive.min() ?? 1, positive.max() ?? 10)
        }
    }
}
