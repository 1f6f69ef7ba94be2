# Web-search flow sizes: the background flows of a production web-search cluster measured
# by M. Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, Fig. 4, in the discretised
# form (in packets of 1460 bytes) used by the pFabric simulations (M. Alizadeh et al.,
# "pFabric: Minimal Near-Optimal Datacenter Transport", SIGCOMM 2013, Sec. 5.1, "web search")
# and by later data-centre papers (PIAS, HPCC, ...), here in bytes (packets x 1460).
# Heavy-tailed: half the flows are under ~70 KB, most bytes are in flows of 1 MB or more.
# Format (ccsim.traffic.FlowSizes.from_file): "size_bytes cdf" per line, cdf non-decreasing
# from the first line to 1; sizes between points are interpolated linearly.
8760 0
8760 0.15
18980 0.2
27740 0.3
48180 0.4
77380 0.53
194180 0.6
973820 0.7
1946180 0.8
4866180 0.9
9733820 0.97
29200000 1
