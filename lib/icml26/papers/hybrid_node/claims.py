"""Falsifiable claims of CHyLL++ (arXiv 2606.10596), read from ``experiment.run``'s results.

Thresholds are the project's design (see ``docs/papers/hybrid_node.md``), following the paper's words:
"lower" is a ratio below 1. The paper's own numbers (Table 1 MSEs) are shown as context only; our systems,
sizes and budgets differ. ``kind="check"`` marks facts of our generator and exact identities (run and shown
apart, never counted).
"""

from __future__ import annotations

from icml26.claims import Claim, Control, Premise

ALL = ("quick", "standard", "full")
BIG = ("standard", "full")
_SYS = ("sawtooth", "ball", "torus", "mobius", "klein", "ball3d")
SRC = "arXiv 2606.10596"
DOC = "docs/papers/hybrid_node.md"


def _at(scales, x):
    return {s: x for s in scales}


# ---------------------------------------------------------------- analytic (checks)
def analytic_latent_jump(r):
    return max(r["analytic"][s]["latent_jump_ratio"] for s in _SYS)


def analytic_state_jump(r):
    return min(r["analytic"][s]["state_jump_ratio"] for s in _SYS)


def analytic_velocity_gap(r):
    return max(r["analytic"][s]["exact_gap"]["velocity"] for s in _SYS)


def two_speed_gap(r):
    return max(r["analytic"]["two_speed"]["position_gap"], r["analytic"]["two_speed"]["velocity_gap"])


def two_speed_injective(r):
    return r["analytic"]["two_speed"]["min_far_distance"]


def analytic_betti_error(r):
    return sum(r["analytic"][s]["betti"]["error"] for s in r["analytic"] if isinstance(r["analytic"][s], dict)
               and "betti" in r["analytic"][s])


def state_jump_ratio(r):
    return r["sawtooth"]["state_jump_ratio"]


# ---------------------------------------------------------------- learned sawtooth
def learned_jump_ratio(r):
    return r["sawtooth"]["chyllpp"]["jump_ratio"]


def learned_velocity_excess(r):
    return r["sawtooth"]["chyllpp"]["velocity"]["excess"]


def latent_ode_velocity_excess(r):
    """2c's negative control: the plain Latent ODE (same networks, initialisation and windows, state loss only: no
    gluing, velocity or latent-consistency terms, so no continuous embedding is asked for), through 2c's test."""
    return r["sawtooth"]["latent_ode"]["velocity"]["excess"]


def velocity_details(r):
    s = r["sawtooth"]
    return {"chyllpp_velocity_excess": s["chyllpp"]["velocity"]["excess"],
            "latent_ode_velocity_excess": s["latent_ode"]["velocity"]["excess"],
            "chyllpp_jump_ratio": s["chyllpp"]["jump_ratio"], "latent_ode_jump_ratio": s["latent_ode"]["jump_ratio"]}


def glue_vs_latent_ode(r):
    return r["sawtooth"]["chyllpp"]["jump_ratio"] / r["sawtooth"]["latent_ode"]["jump_ratio"]


def saw_chyllpp_mae(r):
    return r["sawtooth"]["chyllpp"]["mae_clean"]


def saw_node_mae(r):
    return r["sawtooth"]["node"]["mae_clean"]


def saw_ratio(r):
    return r["sawtooth"]["chyllpp"]["mae_clean"] / r["sawtooth"]["node"]["mae_clean"]


def saw_vs_latent_ode(r):
    return r["sawtooth"]["chyllpp"]["mae_clean"] / r["sawtooth"]["latent_ode"]["mae_clean"]


# ---------------------------------------------------------------- comparisons on the paper's systems
def _ratio(system, other, key="mse"):
    def metric(r):
        return r[system]["chyllpp"][key] / r[system][other][key]
    metric.__name__ = f"{system}_chyllpp_over_{other}_{key}"
    return metric


def event_ratio(r):
    return r["ball"]["chyllpp"]["mse"] / r["ball"]["event"]["median_mse"]


def detection_min(r):
    return min(min(v["precision"], v["recall"]) for v in r["detection"].values())


def detection_gap(r):
    """1 − min(precision, recall) of the detector on the 3D ball's training data (0 = perfect)."""
    d = r["ball3d"]["train_detection"]
    return 1 - min(d["precision"], d["recall"])


def oracle_ratio(r):
    return r["ball3d"]["chyllpp"]["mse"] / r["ball3d"]["oracle"]["mse"]


def torus_no_latent_ratio(r):
    return r["torus"]["no_latent"]["mse"] / r["torus"]["chyllpp"]["mse"]


def _betti(system, model="chyllpp"):
    def metric(r):
        return r[system][model]["betti"]["error"]
    metric.__name__ = f"{system}_{model}_betti_error"
    return metric


def _dim_ratio(system, low, high):
    def metric(r):
        d = r["dimension"][system]
        return d[f"m{low}"]["mse"] / d[f"m{high}"]["mse"]
    metric.__name__ = f"{system}_m{low}_over_m{high}"
    return metric


def torus_dim_spread(r):
    a, b = r["dimension"]["torus"]["m3"]["mse"], r["dimension"]["torus"]["m5"]["mse"]
    return max(a, b) / min(a, b)


def _table1(system, chyllpp, other, name):
    return f"Table 1: {system} MSE CHyLL++ {chyllpp} vs {name} {other}"


WHY = {  # standard misses, measured on seed 0 of the standard record (see _seed0)
    '4a_ball_vs_node': (
        "CHyLL++'s relative L2 rollout error is 0.96 x the state NODE's (needs <= 0.5; 0.96-1.14 on seeds 0-2). On "
        "the same ball CHyLL++ beats every latent model by MSE (4b: 0.28 x CHyLL-style, 4c: 0.67 x Latent ODE, 6c: "
        "0.73 x the event ODE): the state NODE is the baseline that holds up on the elastic ball. No diagnostic run "
        "is recorded for this claim, so what closes the gap is not measured here."),
    '8a_torus_vs_chyll': (
        "the CHyLL-style baseline wins on the torus: CHyLL++'s rollout MSE is 1.54 x its (1.50-3.76 on seeds 0-2; "
        "the paper: 0.22). CHyLL++ still beats the Latent ODE there (8b: 0.62) and dropping L_z costs 7.8 x (7). Our "
        "CHyLL-style model is inferred (two phases, a conformal term, no L_v), not the authors' code. No diagnostic "
        "run is recorded for this claim, so what closes the gap is not measured here."),
    '8c_klein_vs_chyll': (
        "the CHyLL-style baseline wins on the Klein bottle: CHyLL++'s rollout MSE is 1.19 x its (the "
        "paper: 0.27); CHyLL++ beats the Latent ODE there (8d: 0.82). Our CHyLL-style model is inferred "
        "(two phases, a conformal term, no L_v), not the authors' code."),
    '8f_ball3d_vs_latent_ode': (
        "the Latent ODE (CHyLL++'s networks, state loss only, same initialisation and windows) wins on "
        "the 3D ball: CHyLL++'s rollout MSE is 1.49 x its (the paper: 0.31). The CHyLL-style model does "
        "collapse there, as in the paper (8e: CHyLL++ at 0.17 x its MSE)."),
    '9a_torus_topology': (
        "the learned torus embedding does not read as a torus: total Betti error 3 over Z3 (the same "
        "pipeline reads the analytic embedding exactly, check 1f: error 0). No loss term targets the "
        "embedding's topology (C-3) directly: the decoder only asks f to be invertible on the data (errors 2-3 on "
        "seeds 0-2)."),
    '9b_klein_topology': (
        "the learned Klein-bottle embedding does not read as a Klein bottle: total Betti error 4 over Z2 "
        "and Z3 (the pipeline reads the analytic embedding exactly, check 1f: error 0); no loss term "
        "targets the embedding's topology (C-3) directly (error 4 on seeds 0-2)."),
}


def _seed0(text):
    """These whys were written from seed 0 of the standard record; the record holds every seed's value."""
    return "Written from standard seed 0 (the record shows seeds 0-2): " + text


CLAIMS = [
    # ---------------------------------------------------------------- checks: generator and identities
    Claim("1a_analytic_latent_continuous",
          "Analytic embeddings Φ remove the reset jump: max reset step / median step of Φ(x(t)) <= 3 "
          "(sawtooth, ball, torus, Möbius, Klein bottle, 3D ball)", analytic_latent_jump, "<=", _at(ALL, 3.0),
          kind="check", paper_value="Theorem 6 (existence)", source=f"{SRC} §3, Thm 6"),
    Claim("1b_state_jumps", "In state space the same ratio is >= 10 on every system (the resets are real jumps)",
          analytic_state_jump, ">=", _at(ALL, 10.0), kind="check", paper_value="hybrid flows are discontinuous",
          source=f"{SRC} §1-2"),
    Claim("1c_analytic_velocity_compatible",
          "(C-2): relative jump of the latent velocity DΦ·V across the guard < 0.1 (exact JVPs on guard pairs)",
          analytic_velocity_gap, "<", _at(ALL, 0.1), kind="check", paper_value="(C-2) holds generically for m > 2n",
          source=f"{SRC} Thm 6, Cor 1"),
    Claim("1d_two_speed_glue",
          "Paper's 1D two-speed example: positions and latent velocities agree at both glue points to 1e-6",
          two_speed_gap, "<=", _at(ALL, 1e-6), kind="check", paper_value="exact", source=f"{SRC} §3 (1D example)"),
    Claim("1e_two_speed_injective",
          "Paper's 1D example: the closed latent curve is injective (distinct hybrifold points >= 0.01 apart)",
          two_speed_injective, ">=", _at(ALL, 0.01), kind="check", paper_value="embedding (C-3)",
          source=f"{SRC} §3 (1D example)"),
    Claim("1f_analytic_topology",
          "The Betti-number pipeline reads the right (β1, β2) off the analytic Φ of every 2-D system "
          "(torus (2,1); Klein bottle (2,1) over Z2 and (1,0) over Z3; cylinders and Möbius (1,0)): total error 0",
          analytic_betti_error, "<=", _at(BIG, 0), kind="check", paper_value="-", source=f"{DOC} (topology)"),
    Claim("2b_raw_state_jump", "Raw sawtooth test states: jump ratio >= 10", state_jump_ratio, ">=",
          _at(ALL, 10.0), kind="check", paper_value="-", source=f"{SRC} §1"),
    # ---------------------------------------------------------------- learned sawtooth (our testbed)
    Claim("2a_learned_latent_jump",
          "CHyLL++ (m=5) on the cylinder-sawtooth: encoded-trajectory jump ratio r <= 4 (the learned encoder "
          "glues the reset)", learned_jump_ratio, "<=", _at(BIG, 4.0), kind="paper",
          paper_value="continuous latent (Fig. 1)", source=f"{SRC} §4 (L_g), Thm 6 (C-1)"),
    Claim("2d_glue_vs_latent_ode",
          "Sawtooth: the gluing terms remove most of the reset jump: CHyLL++'s encoded-trajectory jump ratio <= 0.5 x "
          "the Latent ODE's (same networks, initialisation and windows; state loss only). Checked from standard on: "
          "at quick it missed on unused seeds", glue_vs_latent_ode, "<=",
          _at(BIG, 0.5), kind="paper", paper_value="L_g enforces (C-1); Latent ODE penetrates the guard",
          source=f"{SRC} §4 (L_g), §5"),
    Claim("2c_learned_velocity_jump",
          "CHyLL++ on the cylinder-sawtooth: the finite-difference latent-velocity jump at resets exceeds the "
          "smooth-curve floor by <= 0.3 (relative): the learned latent vector field is continuous across the reset",
          learned_velocity_excess, "<=", _at(ALL, 0.3), kind="paper",
          paper_value="L_v enforces (C-2)", source=f"{SRC} abstract; §4 (L_v), Thm 6 (C-2)", headline=True,
          quote=("an n-dimensional hybrid system can be embedded into an m-dimensional Euclidean space equipped with "
                 "a continuous vector field on its embedded image whenever m > 2n"),
          control=Control("plain_latent_ode", "the plain Latent ODE without the continuous embedding (CHyLL++'s "
                          "networks, initialisation and windows, state loss only) through the same kink test",
                          latent_ode_velocity_excess),
          details=velocity_details),
    Claim("3a_sawtooth_chyllpp_mae", "Sawtooth 40-step rollout MAE on x (reset-adjacent samples excluded, "
          "no wrapping): CHyLL++ <= 0.1", saw_chyllpp_mae, "<=", _at(BIG, 0.1), kind="paper",
          paper_value="CHyLL++ lowest MSE (Table 1)", source=f"{SRC} §5, Table 1"),
    Claim("3c_sawtooth_ratio", "Sawtooth MAE ratio CHyLL++ / Neural ODE <= 0.5", saw_ratio, "<=", _at(BIG, 0.5),
          kind="paper", paper_value="-", source=f"{SRC} §5, Table 1",
          requires=Premise("node_penetrates_guard", "the state-space Neural ODE fails on the sawtooth (it cannot "
                           "jump back): its 40-step rollout MAE >= 0.2; where it does not, the ratio says nothing "
                           "about the reset", saw_node_mae, ">=", 0.2)),
    Claim("3d_sawtooth_vs_latent_ode", "Sawtooth MAE ratio CHyLL++ / Latent ODE < 1 (the geometric terms help)",
          saw_vs_latent_ode, "<", _at(BIG, 1.0), kind="paper", paper_value="Latent ODE penetrates the guard",
          source=f"{SRC} §5, Table 1"),
    # ---------------------------------------------------------------- bouncing ball
    Claim("4a_ball_vs_node", "Bouncing ball (e=1): CHyLL++ relative L2 rollout error <= 0.5 x the state NODE's",
          _ratio("ball", "node", "rel_l2"), "<=", _at(BIG, 0.5), kind="paper",
          paper_value="NODE penetrates the floor", source=f"{SRC} §5, Table 1",
          why={"standard": _seed0(WHY['4a_ball_vs_node'])}),
    Claim("4b_ball_vs_chyll", "Bouncing ball: CHyLL++ rollout MSE < the CHyLL-style model's",
          _ratio("ball", "chyll"), "<", _at(BIG, 1.0), kind="paper",
          paper_value="0.158 / 0.237 = 0.67", source=_table1("ball", 0.158, 0.237, "CHyLL")),
    Claim("4c_ball_vs_latent_ode", "Bouncing ball: CHyLL++ rollout MSE < the Latent ODE's",
          _ratio("ball", "latent_ode"), "<", _at(BIG, 1.0), kind="paper",
          why={"standard": "CHyLL++ over the Latent ODE is 0.67 / 0.69 / 0.62 on seeds 0-2, below 1 on every seed, "
                           "but the ratio swings with SD 0.31 over development seeds 100-102 (0.87 / 0.53 / 0.25): "
                           "seed 1's 0.69 is within that noise margin, a tie"},
          paper_value="Latent ODE penetrates the guard", source=f"{SRC} §5, Table 1"),
    # ---------------------------------------------------------------- torus, Klein bottle, 3D ball
    Claim("8a_torus_vs_chyll", "Torus: CHyLL++ rollout MSE < the CHyLL-style model's", _ratio("torus", "chyll"),
          "<", _at(BIG, 1.0), kind="paper", paper_value="0.00367 / 0.0164 = 0.22",
          source=_table1("torus", 0.00367, 0.0164, "CHyLL"),
          why={"standard": _seed0(WHY['8a_torus_vs_chyll'])}),
    Claim("8b_torus_vs_latent_ode", "Torus: CHyLL++ rollout MSE < the Latent ODE's", _ratio("torus", "latent_ode"),
          "<", _at(BIG, 1.0), kind="paper", paper_value="baselines make mode errors", source=f"{SRC} §5, Table 1",
          why={"standard": "ratios 0.62, 1.47, 0.36 on seeds 0-2: CHyLL++ beats the Latent ODE on the torus on "
                           "seeds 0 and 2; on seed 1 its own torus rollout is poor as well (3.8 x the CHyLL-style "
                           "model's MSE, claim 8a), one training run per seed and system"}),
    Claim("8c_klein_vs_chyll", "Klein bottle: CHyLL++ rollout MSE < the CHyLL-style model's",
          _ratio("klein", "chyll"), "<", _at(BIG, 1.0), kind="paper", paper_value="0.00587 / 0.0220 = 0.27",
          source=_table1("Klein bottle", 0.00587, 0.0220, "CHyLL"),
          why={"standard": _seed0(WHY['8c_klein_vs_chyll'])}),
    Claim("8d_klein_vs_latent_ode", "Klein bottle: CHyLL++ rollout MSE < the Latent ODE's",
          _ratio("klein", "latent_ode"), "<", _at(BIG, 1.0), kind="paper",
          why={"standard": "CHyLL++ over the Latent ODE is 0.82 / 0.03 / 0.25 on seeds 0-2, below 1 on every seed; "
                           "the ratio swings with SD 0.27 over development seeds 100-102 (0.58 / 0.59 / 0.11), so "
                           "seed 0's 0.82 is within that noise margin, a tie"},
          paper_value="baselines make mode errors", source=f"{SRC} §5, Table 1"),
    Claim("8e_ball3d_vs_chyll", "3D bouncing ball: CHyLL++ rollout MSE < the CHyLL-style model's",
          _ratio("ball3d", "chyll"), "<", _at(BIG, 1.0), kind="paper",
          paper_value="0.162 vs CHyLL collapsed", source=f"{SRC} §5, Table 1"),
    Claim("8f_ball3d_vs_latent_ode", "3D bouncing ball: CHyLL++ rollout MSE < the Latent ODE's",
          _ratio("ball3d", "latent_ode"), "<", _at(BIG, 1.0), kind="paper",
          paper_value="0.162 / 0.524 = 0.31", source=_table1("3D ball", 0.162, 0.524, "Latent ODE"),
          why={"standard": _seed0(WHY['8f_ball3d_vs_latent_ode'])}),
    # ---------------------------------------------------------------- latent dimension (full)
    Claim("5a_mobius_dimension", "Möbius band: rollout MSE at m=2 >= 3 x MSE at m=5", _dim_ratio("mobius", 2, 5),
          ">=", {"full": 3.0}, kind="paper", paper_value="m > 2n sufficient (Thm 6)", source=f"{SRC} §3, §5"),
    Claim("5b_torus_dimension", "Torus: m=3 and m=5 within 1.5 x of each other (m > 2n is not necessary)",
          torus_dim_spread, "<=", {"full": 1.5}, kind="paper", paper_value="m tuned empirically",
          source=f"{SRC} §5 (limitations)"),
    Claim("5c_klein_dimension", "Klein bottle (no embedding in R³): rollout MSE at m=3 >= 1.5 x MSE at m=4",
          _dim_ratio("klein", 3, 4), ">=", {"full": 1.5}, kind="paper", paper_value="m > 2n sufficient (Thm 6)",
          source=f"{SRC} §3, §5"),
    # ---------------------------------------------------------------- reset detection
    Claim("6a_detection", "Speed-threshold detector: precision and recall >= 0.95 on every system (a check: on our "
          "noise-free simulated trajectories a reset is a jump of known size, so detection is a fact of the "
          "generator; under observation noise it would be a measurement)",
          detection_min, ">=", _at(ALL, 0.95), kind="check", paper_value="𝓘 detected from data",
          source=f"{SRC} §4 (L_g)"),
    Claim("6b_detected_vs_oracle", "3D ball: CHyLL++ MSE with detected 𝓘 <= 1.2 x with the simulator's 𝓘",
          oracle_ratio, "<=", _at(BIG, 1.2), kind="paper", paper_value="-", source=f"{SRC} §4, §5 (limitations)",
          requires=Premise("detection_imperfect", "the detector misses or adds reset pairs on the training "
                           "data (1 - min(precision, recall) >= 0.01); otherwise both models are one",
                           detection_gap, ">=", 0.01)),
    Claim("6c_vs_event_ode", "Ball: CHyLL++ MSE < the median MSE of the Neural Event ODE over initialisations",
          event_ratio, "<", _at(BIG, 1.0), kind="paper",
          why={"standard": "ratios 0.73, 1.10, 0.86 on seeds 0-2: CHyLL++ beats the event-driven ODE on seeds 0 "
                           "and 2; on seed 1 the event ODE is 10% better. One training run per seed; not "
                           "diagnosed further this round"}, paper_value="Event ODE ill-conditioned",
          source=f"{SRC} §5, Table 1"),
    # ---------------------------------------------------------------- ablation (Table 2)
    Claim("7_dual_space", "Torus: dropping L_z raises rollout MSE by >= 1.5 x", torus_no_latent_ratio, ">=",
          _at(BIG, 1.5), kind="paper", paper_value="consistency in both spaces needed (Table 2)",
          why={"standard": "dropping L_z raises the torus rollout MSE 7.8x / 2.8x / 2.5x on seeds 0-2, above the "
                           "1.5x bar on every seed, but the ratio varies with SD 2.9 over development seeds 100-102 "
                           "(0.95 / 5.8 / 0.58: on two of them dropping L_z did not hurt), so seeds 1 and 2 are within "
                           "the noise margin, ties"},
          source=f"{SRC} §5, Table 2"),
    # ---------------------------------------------------------------- topology of the learned embeddings
    Claim("9a_torus_topology", "The learned torus embedding has the torus' Betti numbers (β1, β2) = (2, 1) "
          "over Z3 (ripser on the encoder's image of a grid): error 0", _betti("torus"), "<=", _at(BIG, 0),
          kind="paper", paper_value="topology recovered (CHyLL, §5)", source=f"{SRC} §5; {DOC} (topology)",
          why={"standard": _seed0(WHY['9a_torus_topology'])}),
    Claim("9c_ball_topology", "The learned bouncing-ball embedding is the (energy, phase) cylinder: (β1, β2) = (1, 0) "
          "over Z3: error 0", _betti("ball"), "<=", _at(BIG, 0), kind="paper",
          paper_value="the bounce glues the state space (§2)", source=f"{SRC} §2, §5; {DOC} (topology)"),
    Claim("9b_klein_topology", "The learned Klein-bottle embedding has the Klein bottle's Betti numbers: (2, 1) "
          "over Z2 and (1, 0) over Z3: total error 0", _betti("klein"), "<=", _at(BIG, 0), kind="paper",
          paper_value="topology recovered (CHyLL, §5)", source=f"{SRC} §5; {DOC} (topology)",
          why={"standard": _seed0(WHY['9b_klein_topology'])}),
]
