"""Falsifiable claims of CHyLL++ (note §6), read from ``experiment.run``'s results.

Thresholds are the note's (project design, not the paper's numbers). Claim 5's Klein-bottle part and the
persistent-homology (ripser Betti number) checks are not implemented: ripser is not installed and the
Klein-bottle system is full-scale only (see the report / notebook 3).
"""

from __future__ import annotations

from icml26.claims import Claim

ALL = ("quick", "standard", "full")
BIG = ("standard", "full")
_SYS = ("sawtooth", "ball", "torus", "mobius")


def _at(scales, x):
    return {s: x for s in scales}


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


def learned_jump_ratio(r):
    return r["sawtooth"]["chyllpp"]["jump_ratio"]


def state_jump_ratio(r):
    return r["sawtooth"]["state_jump_ratio"]


def learned_velocity_excess(r):
    return r["sawtooth"]["chyllpp"]["velocity"]["excess"]


def saw_chyllpp_mae(r):
    return r["sawtooth"]["chyllpp"]["mae_clean"]


def saw_node_mae(r):
    return r["sawtooth"]["node"]["mae_clean"]


def saw_ratio(r):
    return r["sawtooth"]["chyllpp"]["mae_clean"] / r["sawtooth"]["node"]["mae_clean"]


def ball_vs_node(r):
    return r["ball"]["chyllpp"]["rel_l2"] / r["ball"]["node"]["rel_l2"]


def ball_vs_chyll(r):
    return r["ball"]["chyllpp"]["mse"] / r["ball"]["chyll"]["mse"]


def mobius_dim_ratio(r):
    return r["dimension"]["mobius"]["m2"]["mse"] / r["dimension"]["mobius"]["m5"]["mse"]


def torus_dim_ratio(r):
    a, b = r["dimension"]["torus"]["m3"]["mse"], r["dimension"]["torus"]["m5"]["mse"]
    return max(a, b) / min(a, b)


def detection_min(r):
    return min(min(v["precision"], v["recall"]) for v in r["detection"].values())


def oracle_ratio(r):
    return r["ball"]["chyllpp"]["mse"] / r["ball"]["chyllpp_oracle"]["mse"]


def event_ratio(r):
    return r["ball"]["chyllpp"]["mse"] / r["ball"]["event_median_mse"]


def torus_no_latent_ratio(r):
    return r["torus"]["no_latent"]["mse"] / r["torus"]["full"]["mse"]


SRC = "arXiv 2606.10596"
CLAIMS = [
    Claim("1a_analytic_latent_continuous",
          "Analytic embeddings Φ remove the reset jump: max reset step / median step of Φ(x(t)) <= 3 "
          "(sawtooth, ball, torus, Möbius)", analytic_latent_jump, "<=", _at(ALL, 3.0), kind="check",
          paper_value="Theorem 6 (existence)", source=f"{SRC} §3, Thm 6"),
    Claim("1b_state_jumps", "In state space the same ratio is >= 10 (the resets are real jumps)",
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
          two_speed_injective, ">=", _at(ALL, 0.01),
    kind="check", paper_value="embedding (C-3)", source=f"{SRC} §3 (1D example)"),
    Claim("2a_learned_latent_jump",
          "CHyLL++ (m=5) on the cylinder-sawtooth: encoded-trajectory jump ratio r <= 4",
          learned_jump_ratio, "<=", _at(BIG, 4.0),
    kind="paper", paper_value="continuous latent (Fig. 1)", source=f"{SRC} §4"),
    Claim("2b_raw_state_jump", "Raw sawtooth state: jump ratio >= 10", state_jump_ratio, ">=", _at(ALL, 10.0),
          kind="check",
          paper_value="-", source=f"{SRC} §4"),
    Claim("2c_learned_velocity_jump",
          "CHyLL++: finite-difference latent-velocity jump at detected resets exceeds the smooth-curve "
          "floor by <= 0.3 (relative)", learned_velocity_excess, "<=", _at(BIG, 0.3), kind="paper",
          paper_value="L_v enforces (C-2)", source=f"{SRC} §4 (L_v)"),
    Claim("3a_sawtooth_chyllpp_mae", "Sawtooth 40-step rollout MAE on x (reset-adjacent samples excluded, "
          "no wrapping): CHyLL++ <= 0.1", saw_chyllpp_mae, "<=", _at(BIG, 0.1), kind="paper",
          paper_value="CHyLL++ lowest MSE (Table 1)", source=f"{SRC} Table 1"),
    Claim("3b_sawtooth_node_mae", "Same metric: state-space Neural ODE >= 0.2 (cannot jump back)",
          saw_node_mae, ">=", _at(ALL, 0.2), kind="paper", paper_value="Neural ODE penetrates the guard",
          source=f"{SRC} Table 1"),
    Claim("3c_sawtooth_ratio", "Sawtooth MAE ratio CHyLL++ / Neural ODE <= 0.5", saw_ratio, "<=", _at(BIG, 0.5),
          kind="paper",
          paper_value="-", source=f"{SRC} Table 1"),
    Claim("4a_ball_vs_node", "Bouncing ball (e=1): CHyLL++ relative L2 rollout error <= 0.5 x state NODE's",
          ball_vs_node, "<=", _at(BIG, 0.5),
          kind="paper", paper_value="NODE penetrates the floor", source=f"{SRC} Table 1",
          why="standard (700 iterations, 128 trajectories, seed 0): CHyLL++ rel. L2 0.174 vs state NODE "
                        "0.192, ratio 0.90 > 0.5; with e = 1 a stiff learned field mimics the bounce well enough "
                        "(note §6.4 warns the gap is smaller than on the sawtooth); CHyLL++ still wins on MSE "
                        "(0.164 vs 0.201)"),
    Claim("4b_ball_vs_chyll", "Bouncing ball: CHyLL++ rollout MSE <= 1.0 x the CHyLL-style model's",
          ball_vs_chyll, "<=", _at(BIG, 1.0),
    kind="paper", paper_value="0.158 / 0.237 = 0.67", source=f"{SRC} Table 1"),
    Claim("5a_mobius_dimension", "Möbius band: rollout MSE at m=2 >= 3 x MSE at m=5", mobius_dim_ratio, ">=",
          {"full": 3.0}, kind="paper", paper_value="m > 2n sufficient (Thm 6)", source=f"{SRC} §3, §5"),
    Claim("5b_torus_dimension", "Torus: m=3 and m=5 within 1.5 x of each other (m > 2n not necessary)",
          torus_dim_ratio, "<=", {"full": 1.5},
    kind="paper", paper_value="m tuned empirically", source=f"{SRC} §5 limitations"),
    Claim("6a_detection", "Speed-threshold detector: precision and recall >= 0.95 on sawtooth, ball, torus",
          detection_min, ">=", _at(ALL, 0.95),
    kind="paper", paper_value="𝓘 detected from data", source=f"{SRC} §4 (L_g)"),
    Claim("6b_detected_vs_oracle", "Ball: CHyLL++ MSE with detected 𝓘 <= 1.2 x with oracle 𝓘",
          oracle_ratio, "<=", _at(BIG, 1.2), kind="check", paper_value="-", source=f"{SRC} §4"),
    Claim("6c_vs_event_ode", "Ball: CHyLL++ MSE <= median MSE of the Neural Event ODE over initialisations",
          event_ratio, "<=", _at(BIG, 1.0),
    kind="paper", paper_value="Event ODE ill-conditioned", source=f"{SRC} Table 1"),
    Claim("7_dual_space", "Torus: dropping L_z raises rollout MSE by >= 1.5 x",
          torus_no_latent_ratio, ">=", _at(BIG, 1.5),
          kind="paper", paper_value="consistency in both spaces needed (Table 2)",
          source=f"{SRC} Table 2",
          why="standard (700 iterations, seed 0): torus MSE 0.0958 without L_z vs 0.0742 with it, "
                        "ratio 1.29 < 1.5; both models are still far from converged at this budget (rel. L2 "
                        "0.47-0.53), so L_z helps but by less than the note's margin"),
]
