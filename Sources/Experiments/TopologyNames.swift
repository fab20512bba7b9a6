/// How PoPs and regions are named in every output (pops.csv, region-misses.csv, the report's PoP
/// table and region chart): by the scenario's `infra.topology.popNames` and `regionNames` when it
/// gives them, else a region by its index in `infra.topology.regions` ("region 3") and a PoP by a
/// code from its index, the `popIndex` regions point at ("pop-3"). The same index always gives the
/// same name, so a row of pops.csv, a line of the region chart and the scenario file agree.
package struct TopologyNames: Sendable, Equatable {
    /// PoP codes by index; empty: the defaults.
    package var popNames: [String]
    /// Region names by index; empty: the defaults.
    package var regionNames: [String]

    /// The names of `infra.topology.popNames` and `regionNames` (validated by the scenario reader: one
    /// per PoP, one per region); empty lists give the defaults ("pop-N", "region N").
    package init(popNames: [String] = [], regionNames: [String] = []) {
        self.popNames = popNames
        self.regionNames = regionNames
    }

    /// The name of `infra.topology.regions[index]` (of the effective regions).
    package func region(_ index: Int) -> String {
        regionNames.indices.contains(index) ? regionNames[index] : Self.defaultRegion(index)
    }

    /// The code of the PoP with `popIndex` `index`.
    package func pop(_ index: Int) -> String {
        popNames.indices.contains(index) ? popNames[index] : Self.defaultPop(index)
    }

    /// "region 3" for `infra.topology.regions[3]` when the scenario names none.
    package static func defaultRegion(_ index: Int) -> String { "region \(index)" }
    /// "pop-3" for the PoP with `popIndex` 3 when the scenario names none.
    package static func defaultPop(_ index: Int) -> String { "pop-\(index)" }
}
