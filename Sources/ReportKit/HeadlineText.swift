/// Display text for a headline metric, shared by the Markdown and HTML renderers (unescaped).
extension HeadlineMetric {
    /// The point estimate with the metric's decimals and thousands separators, e.g. "1.31", "1,840".
    var valueText: String { TextFormat.fixed(value, decimals: decimals, grouping: true) }

    /// "± 0.04", or "—" without an interval.
    var halfWidthText: String {
        guard let ciHalfWidth, ciHalfWidth.isFinite else { return "—" }
        return "± " + TextFormat.fixed(abs(ciHalfWidth), decimals: decimals, grouping: true)
    }

    /// "95% CI" (one decimal when the level is not a whole percentage, e.g. "99.9% CI").
    var ciLevelText: String { Self.levelText(ciLevel) + " CI" }

    /// "above 1.20 s" for an alarm above 1.2 s, "below 90.0 %" for one below; "—" without a threshold.
    var thresholdText: String {
        guard let threshold else { return "—" }
        let sign = threshold.alarmWhen == .above ? "above " : "below "
        return sign + TextFormat.fixed(threshold.value, decimals: decimals, grouping: true) + (unit.isEmpty ? "" : " " + unit)
    }

    static func levelText(_ level: Double) -> String {
        let percent = level * 100
        let whole = percent.isFinite && (percent - percent.rounded()).magnitude < 1e-9
        return TextFormat.fixed(percent, decimals: whole ? 0 : 1) + "%"
    }
}
