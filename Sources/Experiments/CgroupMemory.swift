import Foundation

/// The memory a control group (a container, a Slurm or Kubernetes job) still allows this process,
/// which /proc/meminfo does not show.
enum CgroupMemory {
    /// The tightest room (limit − usage) over this process's memory control group and its
    /// ancestors, or nil when no limit is set or the files are absent.
    /// - Parameters:
    ///   - procSelfCgroup: the process's group list (`/proc/self/cgroup`): `0::/PATH` (v2) or
    ///     `N:memory:/PATH` or `N:…,memory,…:/PATH` (v1).
    ///   - root: where the hierarchies are mounted (`/sys/fs/cgroup`; v1's memory hierarchy in
    ///     `root/memory`).
    static func room(procSelfCgroup: String, root: String) -> AvailableMemory? {
        guard let text = try? String(contentsOfFile: procSelfCgroup, encoding: .utf8) else { return nil }
        var best: AvailableMemory? = nil
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let controllers = fields[1].split(separator: ",")
            let candidate: AvailableMemory?
            if fields[0] == "0", controllers.isEmpty {
                candidate = tightest(root, String(fields[2]), limitFile: "memory.max", usageFile: "memory.current", version: "cgroup v2")
            } else if controllers.contains("memory") {
                candidate = tightest(root + "/memory", String(fields[2]), limitFile: "memory.limit_in_bytes",
                                     usageFile: "memory.usage_in_bytes", version: "cgroup v1")
            } else {
                candidate = nil
            }
            if let candidate, candidate.bytes < (best?.bytes ?? .max) { best = candidate }
        }
        return best
    }

    /// Walks from `root + path` up to `root`, returning the smallest limit − usage found.
    private static func tightest(_ root: String, _ path: String, limitFile: String, usageFile: String, version: String) -> AvailableMemory? {
        var components = path.split(separator: "/").map(String.init).filter { $0 != "." && $0 != ".." }
        var best: AvailableMemory? = nil
        while true {
            let directory = ([root] + components).joined(separator: "/")
            if let limit = number(directory + "/" + limitFile) {
                let used = number(directory + "/" + usageFile) ?? 0
                let room = limit > used ? limit - used : 0
                if room < (best?.bytes ?? .max) {
                    best = AvailableMemory(bytes: room, source: "\(version) limit \(MemoryGuard.formatBytes(limit)) less \(MemoryGuard.formatBytes(used)) in use (\(directory)/\(limitFile))")
                }
            }
            if components.isEmpty { break }
            components.removeLast()
        }
        return best
    }

    /// A file holding one unsigned integer; nil for "max", an absent file or anything else. v1's
    /// "no limit" is a huge number (about 2^63), larger than any real memory, so it never wins.
    private static func number(_ path: String) -> UInt64? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
