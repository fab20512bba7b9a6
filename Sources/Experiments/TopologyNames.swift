/// How PoPs and regions are named in every output (pops.csv, region-misses.csv, the report's PoP
/// table and region chart): a region by its index in `infra.topology.regions` ("region 3"), a PoP by
/// a code from its index, the `popIndex` regions point at ("pop-3"). The same index always gives the
/// same name, so a row of pops.csv, a line of the region chart and the scenario file agree.
package enum TopologyNames {
    /// "region 3" for `infra.topology.regions[3]`.
    package static func region(_ index: Int) -> String { "region \(index)" }
    /// "pop-3" for the PoP with `popIndex` 3.
    package static func pop(_ index: Int) -> String { "pop-\(index)" }
}
