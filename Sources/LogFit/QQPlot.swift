import Foundation

/// A QQ plot as a small self-contained SVG: logged quantiles (x) against the fitted model's (y) on
/// log–log axes, with the identity line; points on the line mean the model matches.
enum QQPlot {
    static let size = 320.0, margin = 40.0

    static func svg(title: String, points: [(empirical: Double, model: Double)]) -> String {
        let usable = points.filter { $0.empirical > 0 && $0.model > 0 && $0.model.isFinite }
        let all = usable.flatMap { [$0.empirical, $0.model] }
        let low = log10(all.min() ?? 1), high = log10(all.max() ?? 10)
        let span = max(high - low, 1e-9)
        let plot = size - 2 * margin
        func x(_ v: Double) -> Double { margin + (log10(v) - low) / span * plot }
        func y(_ v: Double) -> Double { size - margin - (log10(v) - low) / span * plot }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(size))\" height=\"\(Int(size))\" font-family=\"sans-serif\" font-size=\"11\">\n"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        s += "<text x=\"\(f(size / 2))\" y=\"16\" text-anchor=\"middle\">\(escape(title))</text>\n"
        s += "<rect x=\"\(f(margin))\" y=\"\(f(margin))\" width=\"\(f(plot))\" height=\"\(f(plot))\" fill=\"none\" stroke=\"#999\"/>\n"
        s += "<line x1=\"\(f(margin))\" y1=\"\(f(size - margin))\" x2=\"\(f(size - margin))\" y2=\"\(f(margin))\" stroke=\"#c33\" stroke-dasharray=\"4 3\"/>\n"
        for p in usable {
            s += "<circle cx=\"\(f(x(p.empirical)))\" cy=\"\(f(y(p.model)))\" r=\"2.2\" fill=\"#2a6fb0\"/>\n"
        }
        let lowText = String(format: "%.3g", pow(10, low)), highText = String(format: "%.3g", pow(10, high))
        s += "<text x=\"\(f(margin))\" y=\"\(f(size - margin + 14))\">\(lowText)</text>\n"
        s += "<text x=\"\(f(size - margin))\" y=\"\(f(size - margin + 14))\" text-anchor=\"end\">\(highText)</text>\n"
        s += "<text x=\"\(f(size / 2))\" y=\"\(f(size - 8))\" text-anchor=\"middle\">logged quantile (log scale)</text>\n"
        s += "<text x=\"12\" y=\"\(f(size / 2))\" transform=\"rotate(-90 12 \(f(size / 2)))\" text-anchor=\"middle\">fitted quantile</text>\n"
        return s + "</svg>\n"
    }

    static func escape(_ t: String) -> String {
        t.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
