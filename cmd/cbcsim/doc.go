// Command cbcsim runs, checks, replays, diffs, fuzzes, exports and draws
// scenarios of the CBC-MN scheduler, and benchmarks its real mode.
//
//	cbcsim run scenarios/fail_fast.toml --seed 7 --workers 4 --trace ff.trace
//	cbcsim check scenarios --seeds 200 --workers 1,2,4,8
//	cbcsim replay ff.trace
//	cbcsim diff a.trace b.trace
//	cbcsim fuzz --seeds 5000
//	cbcsim report ff.trace -o ff.html
//
// Every subcommand lives in its own file with a newXxxCmd constructor; the
// logic is in the packages (sim, sim/gen, trace, trace/htmlreport, bench). Exit status: 0
// success, 1 a broken invariant or expectation (or differing traces), 2 bad
// input, always with a message that names the file and where.
package main
