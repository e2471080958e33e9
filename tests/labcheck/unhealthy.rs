//! Every check that demands Healthy names what is not healthy, in every step and stage (issue 22
//! §3): the crash-looping pod with its last exit, a rollout still going in Argo CD's words.

use labcheck::lab::cluster;
use serde_json::json;

use crate::harness::World;
use crate::module_10_cluster::{app_of, cause, check_with, field, fixture, revisions, status};

#[test]
fn the_break_it_fix_stage_names_a_crash_loop_with_its_last_exit_as_step_5_does() {
    let world = World::at("break-it/fix");
    let mut snapshot =
        cluster::solved("break-it/fix", &revisions(&world)).expect("a fixture state");
    // The crash-looping pod of step 5's Degraded state (written from kubelet's status), in the
    // fix stage's cluster; the app Degraded as Argo CD aggregates it.
    let degraded = fixture(&world, "step-5-degraded.yaml");
    let crashing = degraded
        .objects
        .iter()
        .find(|o| {
            o["kind"] == "Pod"
                && o["status"]["containerStatuses"][0]["state"]["waiting"]["reason"]
                    == "CrashLoopBackOff"
        })
        .cloned()
        .expect("the crash-looping pod");
    // The Deployment's pods (a hook's carry its Job's name) make way for the crashing one.
    snapshot
        .objects
        .retain(|o| !(o["kind"] == "Pod" && o["metadata"]["labels"]["job-name"].is_null()));
    snapshot.objects.push(crashing);
    app_of(&mut snapshot)["status"]["health"] = json!({"status": "Degraded"});
    let run = check_with(&world, &snapshot, "break-it/fix");
    let id = "sync-succeeded-healthy";
    assert_eq!(status(&run, id), "fail", "{}", run.stdout);
    assert_eq!(
        cause(&run, id),
        "pod-stuck:CrashLoopBackOff",
        "{}",
        run.stdout
    );
    let diagnosis = field(&run, id, "diagnosis");
    assert!(diagnosis.contains("CrashLoopBackOff"), "{diagnosis}");
    assert!(diagnosis.contains("exit code 1"), "{diagnosis}");
}

#[test]
fn a_rollout_still_going_is_named_and_still_waited_for() {
    let world = World::at("step-5");
    let mut snapshot = cluster::solved("step-5", &revisions(&world)).expect("a fixture state");
    // Mid-rollout, as the Deployment controller writes it: the new ReplicaSet's pod is up, the
    // old one is still terminating.
    let deployment = snapshot
        .objects
        .iter_mut()
        .find(|o| o["kind"] == "Deployment" && o["metadata"]["name"] == "checkout")
        .expect("the Deployment");
    deployment["status"]["replicas"] = json!(2);
    deployment["status"]["updatedReplicas"] = json!(1);
    deployment["status"]["availableReplicas"] = json!(1);
    app_of(&mut snapshot)["status"]["health"] = json!({"status": "Progressing"});
    let run = check_with(&world, &snapshot, "step-5");
    let id = "synced-healthy";
    assert_eq!(status(&run, id), "fail", "{}", run.stdout);
    let diagnosis = field(&run, id, "diagnosis");
    assert!(
        diagnosis.contains(
            "Deployment checkout: Progressing (Waiting for rollout to finish: 1 old replicas are pending termination...)"
        ),
        "{diagnosis}"
    );
    assert!(
        field(&run, id, "hint").contains("it is still rolling out: wait"),
        "{}",
        run.stdout
    );
    assert!(
        !field(&run, id, "hint").contains("waiting will not fix"),
        "{}",
        run.stdout
    );
}
