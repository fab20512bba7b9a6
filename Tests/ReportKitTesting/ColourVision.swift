import Foundation
import ReportKit

/// Colour distances as readers with and without a colour-vision deficiency see them, for checking that
/// a chart's series can be told apart. The rule (docs/report.md): within a chart, every two series
/// drawn with the same mark (the same dash, or both as filled boxes) differ by a CIEDE2000 distance of
/// at least `minimumDistance`, in normal vision and under simulated protanopia and deuteranopia
/// (Machado, Oliveira & Fernandes 2009, severity 1, applied to linear sRGB).
package enum ColourVision: String, CaseIterable, Sendable {
    case normal, protanopia, deuteranopia

    /// The smallest CIEDE2000 distance two series' colours may have.
    package static let minimumDistance = 10.0

    /// Machado et al. (2009) simulation matrices at severity 1.0, on linear RGB.
    private var matrix: [[Double]]? {
        switch self {
        case .normal: return nil
        case .protanopia: return [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]
        case .deuteranopia: return [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]
        }
    }

    /// CIELAB (D65) of `#RRGGBB` as seen with this vision.
    package func lab(_ hex: String) -> (l: Double, a: Double, b: Double) {
        let digits = Array(hex.dropFirst())
        func channel(_ i: Int) -> Double {
            let v = Double(Int(String(digits[(2 * i)..<(2 * i + 2)]), radix: 16) ?? 0) / 255
            return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
        var rgb = [channel(0), channel(1), channel(2)]
        if let m = matrix { rgb = (0..<3).map { i in m[i][0] * rgb[0] + m[i][1] * rgb[1] + m[i][2] * rgb[2] } }
        let (r, g, b) = (min(1, max(0, rgb[0])), min(1, max(0, rgb[1])), min(1, max(0, rgb[2])))
        let x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
        let z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }

    /// The CIEDE2000 colour difference (Sharma, Wu & Dalal 2005) of two CIELAB colours.
    package static func ciede2000(_ p: (l: Double, a: Double, b: Double), _ q: (l: Double, a: Double, b: Double)) -> Double {
        func rad(_ d: Double) -> Double { d * .pi / 180 }
        func deg(_ r: Double) -> Double { r * 180 / .pi }
        let c1 = (p.a * p.a + p.b * p.b).squareRoot(), c2 = (q.a * q.a + q.b * q.b).squareRoot()
        let cBar = (c1 + c2) / 2
        let g = 0.5 * (1 - (pow(cBar, 7) / (pow(cBar, 7) + pow(25, 7))).squareRoot())
        let a1 = (1 + g) * p.a, a2 = (1 + g) * q.a
        let c1p = (a1 * a1 + p.b * p.b).squareRoot(), c2p = (a2 * a2 + q.b * q.b).squareRoot()
        func hue(_ b: Double, _ a: Double) -> Double {
            if a == 0 && b == 0 { return 0 }
            let h = deg(atan2(b, a))
            return h < 0 ? h + 360 : h
        }
        let h1 = hue(p.b, a1), h2 = hue(q.b, a2)
        let dL = q.l - p.l, dC = c2p - c1p
        var dh = 0.0
        if c1p * c2p != 0 {
            dh = h2 - h1
            if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
        }
        let dH = 2 * (c1p * c2p).squareRoot() * sin(rad(dh / 2))
        let lBar = (p.l + q.l) / 2, cBarP = (c1p + c2p) / 2
        var hBar = h1 + h2
        if c1p * c2p != 0 {
            if abs(h1 - h2) <= 180 { hBar = (h1 + h2) / 2 } else if h1 + h2 < 360 { hBar = (h1 + h2 + 360) / 2 } else { hBar = (h1 + h2 - 360) / 2 }
        }
        let t = 1 - 0.17 * cos(rad(hBar - 30)) + 0.24 * cos(rad(2 * hBar)) + 0.32 * cos(rad(3 * hBar + 6)) - 0.20 * cos(rad(4 * hBar - 63))
        let dTheta = 30 * exp(-pow((hBar - 275) / 25, 2))
        let rc = 2 * (pow(cBarP, 7) / (pow(cBarP, 7) + pow(25, 7))).squareRoot()
        let sl = 1 + 0.015 * pow(lBar - 50, 2) / (20 + pow(lBar - 50, 2)).squareRoot()
        let sc = 1 + 0.045 * cBarP, sh = 1 + 0.015 * cBarP * t
        let rt = -sin(rad(2 * dTheta)) * rc
        let (x, y, z) = (dL / sl, dC / sc, dH / sh)
        return (x * x + y * y + z * z + rt * y * z).squareRoot()
    }

    /// The distance between two `#RRGGBB` colours as seen with this vision.
    package func distance(_ first: String, _ second: String) -> Double { Self.ciede2000(lab(first), lab(second)) }

    /// Every pair of `chart`'s series that break the rule, as "vision: a / b ΔE 3.6".
    package static func problems(in chart: Chart) -> [String] {
        let styles = chart.seriesStyles
        var found: [String] = []
        for i in styles.indices {
            for j in styles.indices where j > i && styles[i].mark == styles[j].mark {
                for vision in allCases {
                    let d = vision.distance(styles[i].color.hex, styles[j].color.hex)
                    if d < minimumDistance {
                        found.append(chart.title + ": " + vision.rawValue + ": " + styles[i].name + " / " + styles[j].name
                                     + " ΔE " + String(format: "%.1f", d))
                    }
                }
            }
        }
        return found
    }
}
