# Data-mining flow sizes: the flows of a production data-mining cluster measured by
# A. Greenberg et al., "VL2: A Scalable and Flexible Data Center Network", SIGCOMM 2009,
# Fig. 2, in the discretised form (in packets of 1460 bytes) used by the pFabric simulations
# (M. Alizadeh et al., "pFabric: Minimal Near-Optimal Datacenter Transport", SIGCOMM 2013,
# Sec. 5.1, "data mining") and by later data-centre papers, here in bytes (packets x 1460).
# More skewed than web search: half the flows are a single packet, while flows over 100 MB
# carry most of the bytes.
# Format (ccsim.traffic.FlowSizes.from_file): "size_bytes cdf" per line, cdf non-decreasing
# from the first line to 1; sizes between points are interpolated linearly.
1460 0
1460 0.5
2920 0.6
4380 0.7
10220 0.8
389820 0.9
3076220 0.95
97333820 0.99
973333820 1
