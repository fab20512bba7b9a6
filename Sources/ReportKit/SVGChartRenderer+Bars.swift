import Foundation

/// Bar charts: 100 % stacked breakdowns and grouped bars.
extension SVGChartRenderer {
    // MARK: Breakdown

    static let breakdownBarHeight = 30.0
    static let breakdownBarGap = 14.0

    func renderBreakdown(_ chart: BreakdownChart, prefix: String) -> String {
        let legend = chart.categories.enumerated().map { index, category in
            LegendItem(name: category.name, color: category.color ?? .automatic(index), mark: .box)
        }
        let longestLabel = chart.bars.map { Self.textWidth($0.label, fontSize: 12) }.max() ?? 0
        let labelWidth = min(max(longestLabel + 14, 56), min(200, layout.width * 0.3))
        let totalLabels = chart.bars.map { "n = " + TextFormat.count($0.total(categories: chart.categories.count)) }
        let totalWidth = (totalLabels.map { Self.textWidth($0, fontSize: 11) }.max() ?? 0) + 22
        let left = 12 + labelWidth
        let legendHeight = Self.legendHeight(legend, width: layout.width - left - layout.marginRight)
        let top = Self.legendTop + legendHeight + 10
        let barsHeight = Double(chart.bars.count) * (Self.breakdownBarHeight + Self.breakdownBarGap) - (chart.bars.isEmpty ? 0 : Self.breakdownBarGap)
        let plotHeight = max(barsHeight, Self.breakdownBarHeight)
        let bottom = top + plotHeight
        let height = bottom + 52
        let frame = PlotFrame(left: left, top: top, width: layout.width - left - totalWidth, height: plotHeight, totalHeight: height, legendLeft: left)
        let xTicks = AxisTicks.linear(0, 1, maxIntervals: layout.xIntervalsMax >= 8 ? 5 : 2)
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

        drawPlotArea(&svg, frame: frame)
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

    func renderGroupedBars(_ chart: GroupedBarChart, prefix: String) -> String {
        let values = chart.drawnValues
        let display = chart.displayScale
        let scaled = values.map { $0 / display.divisor }
        let yTicks = AxisTicks.linear(min(0, scaled.min() ?? 0), max(0, scaled.max() ?? 1), maxIntervals: 5)
        let legend = chart.series.enumerated().map { index, series in
            LegendItem(name: series.name, color: series.color ?? .automatic(index), mark: .box)
        }
        let frame = PlotFrame(layout: layout, legend: legend, hasMarkers: false)
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
        drawPlotArea(&svg, frame: frame)
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
}
