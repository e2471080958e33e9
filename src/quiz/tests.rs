use super::*;

fn quiz() -> Quiz {
    let text = r#"format: labcheck/v1
title: "t"
questions:
  - question: "one?"
    options:
      - { text: "x", why: "no" }
      - { text: "y", right: true, why: "yes" }
  - question: "two?"
    options:
      - { text: "x", right: true, why: "yes" }
      - { text: "y", why: "no" }
      - { text: "z", why: "no" }
"#;
    Quiz::parse("quiz.yaml", text).expect("a quiz")
}

#[test]
fn answers_take_letters_or_numbers_in_any_order() {
    assert_eq!(
        parse_answers("2=a, 1=B", &quiz()).expect("read"),
        vec![1, 0]
    );
    assert_eq!(parse_answers("1=2,2=3", &quiz()).expect("read"), vec![1, 2]);
}

#[test]
fn bad_answers_say_what_is_wrong_and_show_the_form() {
    for (answers, says) in [
        ("1=b", "no answer for question 2"),
        ("1=b,2=d", "question 2 has options a–c"),
        ("1=b,1=a,2=a", "answered twice"),
        ("3=a", "there is no question 3"),
        ("1b,2=a", "has no `=`"),
    ] {
        let err = parse_answers(answers, &quiz())
            .expect_err(answers)
            .to_string();
        assert!(err.contains(says), "{answers}: {err}");
        assert!(err.contains("--answers 1=a,2=a"), "{err}");
    }
}

#[test]
fn grading_explains_the_choice_and_the_right_one() {
    let graded = grade("module-t", &quiz(), &[0, 0]);
    assert_eq!(graded.right(), 1);
    assert_eq!(graded.answers[0].chosen_why, "no");
    assert_eq!(graded.answers[0].right_why, "yes");
    assert_eq!(graded.answers_text(), "1=a,2=a");
}

#[test]
fn a_question_without_exactly_one_right_option_is_refused() {
    let text = "format: labcheck/v1\ntitle: t\nquestions:\n  - question: q\n    options:\n      - { text: a, why: w }\n      - { text: b, why: w }\n";
    let err = Quiz::parse("quiz.yaml", text)
        .expect_err("refused")
        .to_string();
    assert!(err.contains("marks 0 options"), "{err}");
}
