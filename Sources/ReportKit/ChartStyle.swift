/// Line patterns and reference lines shared by the line-drawing charts.

/// A stroke pattern for a line series. Give series a meaning-bearing dash (e.g. one per network class)
/// and a meaning-bearing colour (e.g. one per platform), so the same thing looks the same in every chart.
package enum LineDash: Int, Sendable, Equatable, CaseIterable {
    case solid, dashed, dotted, dashDot, longDash

    /// The SVG `stroke-dasharray` value; nil for a solid line.
    package var pattern: String? {
        switch self {
        case .solid: return nil
        case .dashed: return "7 4"
        case .dotted: return "2 3"
        case .dashDot: return "8 3 2 3"
        case .longDash: return "12 4"
        }
    }

    /// The pattern for the series at `index` when none is given: solid for the first palette cycle, then
    /// dashed, then dotted, so a ninth series is not a copy of the first.
    package static func automatic(_ index: Int) -> LineDash {
        switch (index / ChartColor.automaticCycle.count) % 3 {
        case 0: return .solid
        case 1: return .dashed
        default: return .dotted
        }
    }

    /// The pattern for the `index`-th value of a style key (e.g. the index of a network class), cycling.
    package static func cycling(_ index: Int) -> LineDash {
        allCases[((index % allCases.count) + allCases.count) % allCases.count]
    }
}

/// A labelled horizontal line across a plot at a fixed value, e.g. "alarm 90 %" or "SLO 500 ms".
package struct ReferenceLine: Sendable, Equatable {
    /// What the level means; drives its colour.
    package enum Kind: Sendable, Equatable {
        /// An alarm level: crossing it is bad (drawn in vermillion).
        case alarm
        /// A target or service-level objective (drawn in green).
        case target
        /// A capacity, e.g. what the origin's workers can serve (drawn in dark grey).
        case capacity
    }

    /// The level, in the value axis' unit.
    package var value: Double
    /// Text drawn at the line's right end, e.g. "alarm 0.90".
    package var label: String
    /// Alarm or target.
    package var kind: Kind

    /// Creates the value from its properties (see their documentation).
    package init(value: Double, label: String, kind: Kind) {
        self.value = value
        self.label = label
        self.kind = kind
    }

    /// The line's colour as `#RRGGBB`.
    var colorHex: String {
        switch kind {
        case .alarm: return ChartColor.vermillion.hex
        case .target: return ChartColor.green.hex
        case .capacity: return ChartColor.grey.hex
        }
    }
}
