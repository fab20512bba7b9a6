/// How CDN and transit contracts bill bandwidth: the "95th percentile" (burstable) rule. The
/// traffic of a period is cut into 5-minute samples, each sample's mean rate is taken, the top 5 %
/// of samples are discarded and the highest remaining sample is the billable rate. With N samples
/// sorted ascending that is sample number ⌈0.95 · N⌉ (1-based), so a burst shorter than 5 % of the
/// samples costs nothing above the base. Source: the burstable-billing convention of transit and
/// CDN contracts, as described by Dimitropoulos et al., "On the 95-percentile billing method"
/// (PAM 2009).
package enum BandwidthBilling {
    /// The billing rule's sample length, 300 s.
    package static let sampleSeconds = 300

    /// The 95th-percentile billable rate in bits per second of a per-second byte series (index =
    /// second). A last partial sample counts over its own length. Empty input reads 0.
    package static func percentile95BitsPerSecond(bytesPerSecond: [UInt64], sampleSeconds: Int = sampleSeconds,
                                                 percentile: Double = 0.95) -> Double {
        precondition(sampleSeconds > 0 && percentile > 0 && percentile <= 1)
        var rates: [Double] = []
        rates.reserveCapacity(bytesPerSecond.count / sampleSeconds + 1)
        var start = 0
        while start < bytesPerSecond.count {
            let end = min(start + sampleSeconds, bytesPerSecond.count)
            var sum: UInt64 = 0
            for s in start..<end { sum &+= bytesPerSecond[s] }
            rates.append(Double(sum) * 8 / Double(end - start))
            start = end
        }
        return percentileOfSamples(rates, percentile: percentile)
    }

    /// Sample number ⌈p · N⌉ (1-based) of `samples` sorted ascending; 0 when there are none.
    package static func percentileOfSamples(_ samples: [Double], percentile: Double = 0.95) -> Double {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.sorted()
        return sorted[rank(percentile, of: sorted.count) - 1]
    }

    /// The nearest rank ⌈p · N⌉ of N ≥ 1 values sorted ascending (1-based, within 1…N).
    package static func rank(_ percentile: Double, of count: Int) -> Int {
        max(1, min(Int((percentile * Double(count)).rounded(.up)), count))
    }
}
