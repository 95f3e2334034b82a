// The core's semaphore bank: NSEM counters that signals increment and waits decrement.
// A signal ending in cycle [s, s+1) counts from edge s+1; a blocked wait is granted in the
// first cycle its counter is positive and takes one unit at the next edge. Waits blocked on
// one semaphore are served oldest first (npusim's SimPy Container serves its get queue in
// request order), as many as the counter holds; waits that began in the same cycle go in
// unit order.
`default_nettype none
module semaphores #(
    parameter integer NSEM = 8,     // Target semaphores
    parameter integer NU   = 3,     // units that signal and wait
    parameter integer SW   = 5,     // index width (the ISA's sem field)
    parameter integer MAX  = 65536, // npusim.core.SEMAPHORE_MAX: a signal past it is a fault
    parameter integer VW   = 17,    // counter width, holds MAX
    parameter integer AGW  = 16     // wait age counter width (saturates)
) (
    input  wire             clk,
    input  wire             rst,
    input  wire [NU-1:0]    sig_valid,
    input  wire [NU*SW-1:0] sig_sem,
    input  wire [NU-1:0]    wait_req,
    input  wire [NU*SW-1:0] wait_sem,
    output reg  [NU-1:0]    wait_grant,
    output reg              fault       // sticky: a sem index past NSEM, or a counter overflow
);
    reg [NSEM*VW-1:0] val;              // semaphore i is val[i*VW +: VW]
    reg [NSEM*VW-1:0] next;
    reg [NU*AGW-1:0]  age;              // cycles each unit's wait has been blocked
    reg               bad;
    reg [SW-1:0]      s, sv;
    reg [VW-1:0]      ahead;            // older waits on the same semaphore
    integer u, v;

    always @* begin
        next = val;
        bad = 1'b0;
        wait_grant = {NU{1'b0}};
        for (u = 0; u < NU; u = u + 1) begin
            s = wait_sem[u*SW +: SW];
            ahead = {VW{1'b0}};
            for (v = 0; v < NU; v = v + 1) begin
                sv = wait_sem[v*SW +: SW];
                if (v != u && wait_req[v] && sv == s &&
                    (age[v*AGW +: AGW] > age[u*AGW +: AGW] ||
                     (age[v*AGW +: AGW] == age[u*AGW +: AGW] && v < u)))
                    ahead = ahead + 1'b1;
            end
            if (wait_req[u] && {1'b0, s} < NSEM[SW:0] && ahead < val[s*VW +: VW]) begin
                wait_grant[u] = 1'b1;
                next[s*VW +: VW] = next[s*VW +: VW] - 1'b1;
            end
            if (wait_req[u] && {1'b0, s} >= NSEM[SW:0]) bad = 1'b1;
        end
        for (u = 0; u < NU; u = u + 1) begin
            s = sig_sem[u*SW +: SW];
            if (sig_valid[u]) begin
                if ({1'b0, s} >= NSEM[SW:0] || next[s*VW +: VW] >= MAX[VW-1:0]) bad = 1'b1;
                else next[s*VW +: VW] = next[s*VW +: VW] + 1'b1;
            end
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            val   <= {NSEM*VW{1'b0}};
            age   <= {NU*AGW{1'b0}};
            fault <= 1'b0;
        end else begin
            val <= next;
            if (bad) fault <= 1'b1;
            for (v = 0; v < NU; v = v + 1)
                if (!wait_req[v] || wait_grant[v]) age[v*AGW +: AGW] <= {AGW{1'b0}};
                else if (age[v*AGW +: AGW] != {AGW{1'b1}})
                    age[v*AGW +: AGW] <= age[v*AGW +: AGW] + 1'b1;
        end
    end
endmodule
`default_nettype wire
